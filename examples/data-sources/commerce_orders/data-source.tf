# Completed orders of one day, newest first. Timestamps in filters are
# ISO 8601 in UTC with milliseconds and a Z.
data "commerce_orders" "completed" {
  filter = "eq(status,complete):ge(created_at,2024-01-01T00:00:00.000Z):lt(created_at,2024-01-02T00:00:00.000Z)"
  sort   = "-created_at"
}

# Unpaid orders in euros or pounds, written with where: the provider builds
# and quotes the filter terms.
data "commerce_orders" "unpaid" {
  where = [
    { attribute = "payment", op = "eq", value = "unpaid" },
    { attribute = "currency", op = "in", values = ["EUR", "GBP"] },
  ]
  max_results = 10
}

# The ten most recent orders of customers called O'Brien (like matches * as
# any run of characters), with the raw JSON for fields the provider does not
# model, such as the formatted price.
data "commerce_orders" "obrien" {
  where = [
    { attribute = "name", op = "like", value = "* O'Brien" },
  ]
  sort         = "-created_at"
  max_results  = 10
  include_json = true
}

output "completed_orders_on_new_years_day" {
  value = data.commerce_orders.completed.total
}

output "unpaid_order_ids" {
  value = data.commerce_orders.unpaid.ids
}

output "obrien_order_totals" {
  value = {
    for o in data.commerce_orders.obrien.orders :
    o.order_number => jsondecode(o.json).meta.display_price.with_tax.formatted
  }
}
