package provider

import (
	"fmt"
	"math/big"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// A list data source's state is written as msgpack while the listing runs
// (see state_encoder.go): records in the order the listing hands them
// over, the late ones in front. Tests hold it to the framework's own
// encoding of the same values (list_state_test.go).

// encoderFor derives the encoder of the records held in the attribute
// records of a list data source whose schema has the Terraform type typ.
func encoderFor[T commerce.Record](typ tftypes.Type, records string, rt recordType[T]) (recordEncoder[T], error) {
	shape, ok := listStateShapeOf(typ, records)
	if !ok {
		return recordEncoder[T]{}, fmt.Errorf("schema type %s has no list of %s objects", typ, records)
	}
	return newRecordEncoder(shape.elem, rt)
}

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

// msgpackCollector writes each record's msgpack as the listing hands it
// over, so that neither the typed records nor any value tree outlive it.
type msgpackCollector[T commerce.Record] struct {
	enc                         recordEncoder[T]
	includeJSON, includeRecords bool
	ids, records                chunkWriter
	lateIDs, lateRecords        chunkWriter
	scratch                     []byte
	jsonBytes                   int // of the records written, their JSON's
}

func (c *msgpackCollector[T]) add(rec T) error {
	c.write(&c.ids, &c.records, rec)
	return c.fits()
}

func (c *msgpackCollector[T]) addLate(late commerce.Record) error {
	rec, ok := late.(T)
	if !ok {
		return fmt.Errorf("internal error: late record of type %T", late)
	}
	c.write(&c.lateIDs, &c.lateRecords, rec)
	return c.fits()
}

// fits fails, and so ends the listing, once the state has passed what
// Terraform can take: from then on no record can make it fit.
func (c *msgpackCollector[T]) fits() error {
	ids := c.ids.n + c.lateIDs.n
	if size := ids + c.records.n + c.lateRecords.n; size > maxStateBytes {
		return &stateTooLargeError{listed: c.ids.items() + c.lateIDs.items(), bytes: size, idBytes: ids, jsonBytes: c.jsonBytes}
	}
	return nil
}

func (c *msgpackCollector[T]) write(ids, records *chunkWriter, rec T) {
	c.scratch = appendString(c.scratch[:0], rec.RecordID())
	ids.add(c.scratch)
	if c.includeRecords {
		c.scratch = c.enc.appendRecord(c.scratch[:0], rec, c.includeJSON)
		records.add(c.scratch)
		if c.includeJSON {
			c.jsonBytes += len(rec.Base().JSON)
		}
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
