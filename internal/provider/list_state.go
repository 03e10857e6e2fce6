package provider

import (
	"context"
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
)

// The two ways a list data source turns listed records into its state:
// valueCollector builds Terraform values for the framework (Read), and
// msgpackCollector writes the state's msgpack directly (readDirect, which
// the provider server uses; see server.go). Both keep records in the order
// the listing hands them over, the late ones in front.

// listStateShape is the Terraform type of a list data source's state, down
// to one record of its records list.
type listStateShape struct {
	state tftypes.Object
	list  tftypes.List
	elem  tftypes.Object
}

func listStateShapeOf(t tftypes.Type, records string) (listStateShape, bool) {
	state, ok := t.(tftypes.Object)
	list, ok2 := state.AttributeTypes[records].(tftypes.List)
	elem, ok3 := list.ElementType.(tftypes.Object)
	return listStateShape{state, list, elem}, ok && ok2 && ok3
}

// valueCollector turns records into Terraform values as the listing delivers them,
// so that the provider never holds a listing twice.
type valueCollector[T client.Record] struct {
	rt                          recordType[T]
	elem                        tftypes.Object
	includeJSON, includeRecords bool
	ids, records                []tftypes.Value
	// lateIDs and lateRecords are records updated while a -updated_at
	// listing ran: they go in front of the others.
	lateIDs, lateRecords []tftypes.Value
}

func (c *valueCollector[T]) add(rec T) error {
	c.ids, c.records = c.appendTo(c.ids, c.records, rec)
	return nil
}

func (c *valueCollector[T]) addLate(late client.Record) error {
	rec, ok := late.(T)
	if !ok {
		return fmt.Errorf("internal error: late record of type %T", late)
	}
	c.lateIDs, c.lateRecords = c.appendTo(c.lateIDs, c.lateRecords, rec)
	return nil
}

func (c *valueCollector[T]) appendTo(ids, records []tftypes.Value, rec T) ([]tftypes.Value, []tftypes.Value) {
	ids = append(ids, tftypes.NewValue(tftypes.String, rec.RecordID()))
	if c.includeRecords {
		records = append(records, tftypes.NewValue(c.elem, c.rt.tfValues(rec, c.includeJSON)))
	}
	return ids, records
}

// computed are the attributes a read fills in: ids, total and the records,
// late ones first, at most maxResults of them (0: no limit).
func (c *valueCollector[T]) computed(shape listStateShape, records string, total, maxResults int) map[string]tftypes.Value {
	ids, recs := c.ids, c.records
	if len(c.lateIDs) > 0 {
		ids, recs = append(c.lateIDs, ids...), append(c.lateRecords, recs...)
		if maxResults > 0 && len(ids) > maxResults {
			ids = ids[:maxResults]
			recs = recs[:min(len(recs), maxResults)]
		}
	}
	// A nil slice makes an empty list; untyped nil makes null.
	recordsValue := tftypes.NewValue(shape.list, recs)
	if !c.includeRecords {
		recordsValue = tftypes.NewValue(shape.list, nil)
	}
	return map[string]tftypes.Value{
		"ids":   tftypes.NewValue(shape.state.AttributeTypes["ids"], ids),
		"total": tftypes.NewValue(tftypes.Number, new(big.Float).SetInt64(int64(total))),
		records: recordsValue,
	}
}

// msgpackCollector writes each record's msgpack as the listing hands it
// over, so that neither the typed records nor any value tree outlive it.
type msgpackCollector[T client.Record] struct {
	enc                         recordEncoder[T]
	includeJSON, includeRecords bool
	ids, records                chunkWriter
	lateIDs, lateRecords        chunkWriter
	scratch                     []byte
}

func (c *msgpackCollector[T]) add(rec T) error {
	c.write(&c.ids, &c.records, rec)
	return nil
}

func (c *msgpackCollector[T]) addLate(late client.Record) error {
	rec, ok := late.(T)
	if !ok {
		return fmt.Errorf("internal error: late record of type %T", late)
	}
	c.write(&c.lateIDs, &c.lateRecords, rec)
	return nil
}

func (c *msgpackCollector[T]) write(ids, records *chunkWriter, rec T) {
	c.scratch = appendString(c.scratch[:0], rec.RecordID())
	ids.add(c.scratch)
	if c.includeRecords {
		c.scratch = c.enc.appendRecord(c.scratch[:0], rec, c.includeJSON)
		records.add(c.scratch)
	}
}

// state is the data source's msgpack state: config with ids, total and the
// records filled in, at most maxResults of them (0: no limit).
func (c *msgpackCollector[T]) state(config tftypes.Value, records string, total, maxResults int) ([]byte, error) {
	return encodeState(config, map[string]encodedList{
		"ids":   {late: &c.lateIDs, main: &c.ids, limit: maxResults},
		records: {late: &c.lateRecords, main: &c.records, limit: maxResults, null: !c.includeRecords},
	}, map[string]tftypes.Value{
		"total": tftypes.NewValue(tftypes.Number, new(big.Float).SetInt64(int64(total))),
	})
}

// listRead is one read of a list data source, the same for the typed lists
// and commerce_list: which records, in which attribute, and how the read
// finds out what to list.
type listRead[T client.Record] struct {
	rt      recordType[T]
	records string
	resolve resolveTarget[T]
}

// values reads into the framework's values: the data source's Read.
func (r listRead[T]) values(ctx context.Context, c *client.Client, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	shape, ok := listStateShapeOf(req.Config.Raw.Type(), r.records)
	if !ok {
		resp.Diagnostics.AddError("Internal error", fmt.Sprintf("unexpected schema type %s; this is a bug in the provider, please report it", req.Config.Raw.Type()))
		return
	}
	col, stats, maxResults, diags := listInto(ctx, c, req.Config, r.resolve, func(in listInputs) *valueCollector[T] {
		return &valueCollector[T]{rt: r.rt, elem: shape.elem, includeJSON: in.IncludeJSON.ValueBool(), includeRecords: in.includeRecords()}
	})
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	state, err := stateWith(req.Config.Raw, col.computed(shape, r.records, stats.Total, maxResults))
	if err != nil {
		resp.Diagnostics.AddError("Internal error", err.Error())
		return
	}
	resp.State.Raw = state
}

// msgpack is values with the state written as msgpack by enc (see
// state_encoder.go): the same inputs, listing and diagnostics, without the
// framework's value trees. The server's readDirect.
func (r listRead[T]) msgpack(ctx context.Context, c *client.Client, cfg tfsdk.Config, enc recordEncoder[T]) ([]byte, diag.Diagnostics) {
	col, stats, maxResults, diags := listInto(ctx, c, cfg, r.resolve, func(in listInputs) *msgpackCollector[T] {
		return &msgpackCollector[T]{enc: enc, includeJSON: in.IncludeJSON.ValueBool(), includeRecords: in.includeRecords()}
	})
	if diags.HasError() {
		return nil, diags
	}
	state, err := col.state(cfg.Raw, r.records, stats.Total, maxResults)
	if err != nil {
		diags.AddError("Internal error", err.Error())
	}
	return state, diags
}

// encoder derives the records' encoder from typ, the Terraform type of the
// data source's schema: the server's prepareDirect.
func (r listRead[T]) encoder(typ tftypes.Type) (recordEncoder[T], error) {
	shape, ok := listStateShapeOf(typ, r.records)
	if !ok {
		return recordEncoder[T]{}, fmt.Errorf("schema type %s has no list of %s objects", typ, r.records)
	}
	return newRecordEncoder(shape.elem, r.rt)
}

func (d *listDataSource[T]) readDirect(ctx context.Context, c *client.Client, cfg tfsdk.Config) ([]byte, diag.Diagnostics) {
	return d.reading(d.target).msgpack(ctx, c, cfg, d.encoder)
}

func (d *listDataSource[T]) prepareDirect(typ tftypes.Type) (err error) {
	d.encoder, err = d.reading(d.target).encoder(typ)
	return err
}
