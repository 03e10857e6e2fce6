// Package liststate writes the state of a list data source as msgpack,
// record by record, as the listing hands the records over.
//
// The list data sources are read by the provider's protocol server, not
// by the framework's Read (internal/provider's server.go answers their
// ReadDataSource with the bytes this package writes). Terraform receives a
// data source's state as msgpack. The framework gets there through generic
// value trees: a tftypes.Value per attribute of every record, copied,
// walked for semantic equality, compared, then marshalled by reflection.
// At 60,000 orders that is gigabytes allocated for 30 MB of msgpack. This
// package instead writes each record's msgpack from the record's typed
// fields (Field), and splices it with the configuration's own values into
// the state (Collector.State).
//
// The schema stays the single definition: the encoder takes its attribute
// names, order and types from the schema's Terraform type and checks each
// against the record type's field (EncoderFor). The bytes are those
// tftypes would write (same library, same rules: object keys sorted, null
// for the service's "no value", integers in their smallest form; see
// state.go); the provider's state_encoder_test.go compares the two byte
// for byte.
//
// The state takes the provider's memory: while the listing runs, the
// Collector holds what the state needs (each record's msgpack, in chunks
// outside the Go heap where the system allows, newChunk in state.go), and hands
// the chunks back as it copies them into the response.
//
// It knows the plugin protocol's types (terraform-plugin-go), not the
// framework, the engine or HTTP.
package liststate
