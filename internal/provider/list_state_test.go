package provider

import (
	"context"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/liststate"
	"github.com/commerce-tf/terraform-provider-commerce/internal/reads"
)

// The reference the direct state is held to: the framework's own values
// for the same records, built as the provider built them before it wrote
// msgpack itself, and encoded by the framework. Tests compare the two byte
// for byte, record by record (state_encoder_test.go) and end to end through
// a provider server whose list reads go this way (server_test.go).

// valueCollector turns records into Terraform values as the listing delivers them,
// so that the provider never holds a listing twice.
type valueCollector[T commerce.Record] struct {
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

func (c *valueCollector[T]) addLate(rec T) error {
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
func (c *valueCollector[T]) computed(shape liststate.Shape, records string, total, maxResults int) map[string]tftypes.Value {
	ids, recs := c.ids, c.records
	if len(c.lateIDs) > 0 {
		ids, recs = append(c.lateIDs, ids...), append(c.lateRecords, recs...)
		if maxResults > 0 && len(ids) > maxResults {
			ids = ids[:maxResults]
			recs = recs[:min(len(recs), maxResults)]
		}
	}
	// A nil slice makes an empty list; untyped nil makes null.
	recordsValue := tftypes.NewValue(shape.List, recs)
	if !c.includeRecords {
		recordsValue = tftypes.NewValue(shape.List, nil)
	}
	return map[string]tftypes.Value{
		"ids":   tftypes.NewValue(shape.State.AttributeTypes["ids"], ids),
		"total": tftypes.NewValue(tftypes.Number, new(big.Float).SetInt64(int64(total))),
		records: recordsValue,
	}
}

// referenceRead is a list data source's Read through the framework's
// values: the same inputs, target and listing as readDirect, with the
// records collected by valueCollector.
func referenceRead[T commerce.Record](ctx context.Context, c *configuredStore, rt recordType[T], req datasource.ReadRequest, resp *datasource.ReadResponse,
	target func(context.Context, listInputs) (listTarget[T], bool),
) {
	ctx, cancel, in, diags := openListRead(ctx, c, req.Config)
	defer cancel()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	t, ok := target(ctx, in)
	if !ok {
		return
	}
	shape, ok := liststate.ShapeOf(req.Config.Raw.Type(), t.records)
	if !ok {
		resp.Diagnostics.AddError("Internal error", "no state shape")
		return
	}
	col := &valueCollector[T]{rt: rt, elem: shape.Element, includeJSON: in.IncludeJSON.ValueBool(), includeRecords: in.includeRecords()}
	expr, _, diags := in.expression(ctx, t.rules, t.example)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	res, err := reads.Read(ctx, c.reads, t.kind, in.query(expr), listing.Reader[T]{Emit: col.add, Late: col.addLate})
	if limit := in.MaxResults.ValueInt64(); limit > 0 {
		resp.Diagnostics.Append(maxResultsWarning(limit, in.Sort.ValueString(), &t.kind.Endpoint, res)...)
	}
	if err != nil {
		resp.Diagnostics.Append(errorDiagnostic(ctx, "list "+t.kind.Name, err))
		return
	}
	state, err := stateWith(req.Config.Raw, col.computed(shape, t.records, res.Total, int(in.MaxResults.ValueInt64())))
	if err != nil {
		resp.Diagnostics.AddError("Internal error", err.Error())
		return
	}
	resp.State.Raw = state
}

type referenceTypedList[T commerce.Record] struct{ *typedListDataSource[T] }

func (d referenceTypedList[T]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	referenceRead(ctx, d.store, d.rt, req, resp, func(context.Context, listInputs) (listTarget[T], bool) { return d.target(), true })
}

type referenceList struct{ *listDataSource }

func (d referenceList) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	referenceRead(ctx, d.store, genericType, req, resp, func(ctx context.Context, in listInputs) (listTarget[commerce.Generic], bool) {
		t, diags := d.target(ctx, d.store, req.Config, in)
		resp.Diagnostics.Append(diags...)
		return t, !diags.HasError()
	})
}

// referenceProvider is the provider with its list data sources read
// through referenceRead.
type referenceProvider struct{ *commerceProvider }

func (p referenceProvider) DataSources(ctx context.Context) []func() datasource.DataSource {
	var out []func() datasource.DataSource
	for _, newDataSource := range p.commerceProvider.DataSources(ctx) {
		out = append(out, func() datasource.DataSource {
			switch d := newDataSource().(type) {
			case *typedListDataSource[commerce.Order]:
				return referenceTypedList[commerce.Order]{d}
			case *typedListDataSource[commerce.File]:
				return referenceTypedList[commerce.File]{d}
			case *typedListDataSource[commerce.Account]:
				return referenceTypedList[commerce.Account]{d}
			case *listDataSource:
				return referenceList{d}
			default:
				return d
			}
		})
	}
	return out
}

// frameworkServer is the provider served by the framework alone, its list
// reads through the framework's values: the reference NewServer's direct
// reads are held to.
var frameworkServer = providerserver.NewProtocol6WithError(provider.Provider(referenceProvider{&commerceProvider{version: "test"}}))
