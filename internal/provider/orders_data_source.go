package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
)

var orderType = recordType[client.Order]{
	kind: client.Orders,
	fields: []field{
		updatedAtField,
		{"status", "Order status, e.g. `incomplete`, `processing`, `complete`, `cancelled`.", types.StringType},
		{"payment", "Payment status, e.g. `unpaid`, `authorized`, `paid`, `refunded`.", types.StringType},
		{"shipping", "Shipping status, e.g. `unfulfilled`, `fulfilled`.", types.StringType},
		{"order_number", "Human-facing order number.", types.StringType},
		{"external_ref", "Reference of the order in another system.", types.StringType},
		{"customer_name", "Name of the customer.", types.StringType},
		{"customer_email", "Email address of the customer.", types.StringType},
		{"customer_id", "Id of the customer who placed the order (`relationships.customer`); null for a guest order.", types.StringType},
		{"account_id", "Id of the account the order was placed for (`relationships.account`); null when it has none.", types.StringType},
		{"currency", "Currency of the amounts, e.g. `USD`.", types.StringType},
		{"amount_with_tax", "Order total including tax, in minor units of `currency` (cents); the service's `meta.display_price.with_tax.amount`.", types.Int64Type},
		{"amount_without_tax", "Order total before tax, in minor units of `currency`; the service's `meta.display_price.without_tax.amount`.", types.Int64Type},
	},
	row: func(o client.Order) []any {
		return []any{o.UpdatedAt, o.Status, o.Payment, o.Shipping, o.OrderNumber, o.ExternalRef,
			o.CustomerName, o.CustomerEmail, o.CustomerID, o.AccountID, o.Currency, o.AmountWithTax, o.AmountWithoutTax}
	},
	lookupKeys: []string{"order_number", "external_ref"},
	example:    "ge(created_at,2026-01-01T00:00:00.000Z):eq(status,complete)",
}

// NewOrdersDataSource is commerce_orders.
func NewOrdersDataSource() datasource.DataSource {
	return &listDataSource[client.Order]{rt: orderType}
}
