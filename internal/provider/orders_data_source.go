package provider

import (
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
)

var orderType = recordType[commerce.Order]{
	kind: commerce.Orders,
	fields: recordFields(
		updatedAt[commerce.Order](),
		stringField("status", "Order status, e.g. `incomplete`, `processing`, `complete`, `cancelled`.", func(o commerce.Order) string { return o.Status }),
		stringField("payment", "Payment status, e.g. `unpaid`, `authorized`, `paid`, `refunded`.", func(o commerce.Order) string { return o.Payment }),
		stringField("shipping", "Shipping status, e.g. `unfulfilled`, `fulfilled`.", func(o commerce.Order) string { return o.Shipping }),
		stringField("order_number", "Human-facing order number.", func(o commerce.Order) string { return o.OrderNumber }),
		stringField("external_ref", "Reference of the order in another system.", func(o commerce.Order) string { return o.ExternalRef }),
		stringField("customer_name", "Name of the customer.", func(o commerce.Order) string { return o.CustomerName }),
		stringField("customer_email", "Email address of the customer.", func(o commerce.Order) string { return o.CustomerEmail }),
		stringField("customer_id", "Id of the customer who placed the order (`relationships.customer`); null for a guest order.", func(o commerce.Order) string { return o.CustomerID }),
		stringField("account_id", "Id of the account the order was placed for (`relationships.account`); null when it has none.", func(o commerce.Order) string { return o.AccountID }),
		stringField("currency", "Currency of the amounts, e.g. `USD`.", func(o commerce.Order) string { return o.Currency }),
		int64Field("amount_with_tax", "Order total including tax, in minor units of `currency` (cents); the service's `meta.display_price.with_tax.amount`, else `meta.with_tax.amount`.", func(o commerce.Order) *int64 { return o.AmountWithTax }),
		int64Field("amount_without_tax", "Order total before tax, in minor units of `currency`; the service's `meta.display_price.without_tax.amount`, else `meta.without_tax.amount`.", func(o commerce.Order) *int64 { return o.AmountWithoutTax }),
	),
	lookupKeys: []string{"order_number", "external_ref"},
	example:    "ge(created_at,2026-01-01T00:00:00.000Z):eq(status,complete)",
}

// newOrdersDataSource is commerce_orders.
func newOrdersDataSource() datasource.DataSource {
	return &typedListDataSource[commerce.Order]{rt: orderType}
}
