# Completed orders of one day, newest first. A date stands for midnight
# UTC; ISO 8601 timestamps and epoch milliseconds work too.
data "commerce_orders" "completed" {
  filter = "eq(status,complete):ge(created_at,2024-01-01):lt(created_at,2024-01-02)"
  sort   = "-created_at"
}

# Unpaid orders in euros over 100.00, written with where: the provider
# builds and quotes the filter terms. Amounts are in minor units (cents).
data "commerce_orders" "unpaid" {
  where = [
    { attribute = "payment", op = "eq", value = "unpaid" },
    { attribute = "currency", op = "eq", value = "EUR" },
    { attribute = "with_tax", op = "gt", value = "10000" },
  ]
  max_results = 10
}

# Orders updated in the last day but created at least a minute ago: the
# service cannot sort orders by updated_at, so the provider sorts them. The
# buffer leaves out orders the eventually consistent service may not show
# completely yet.
data "commerce_orders" "recently_updated" {
  filter             = "ge(updated_at,${formatdate("YYYY-MM-DD'T'hh:mm:ss'.000Z'", timeadd(plantimestamp(), "-24h"))})"
  sort               = "-updated_at"
  consistency_buffer = "60s"
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

output "recently_updated_customers" {
  value = distinct(compact(data.commerce_orders.recently_updated.orders[*].customer_id))
}

output "obrien_order_totals" {
  value = {
    for o in data.commerce_orders.obrien.orders :
    o.order_number => jsondecode(o.json).meta.display_price.with_tax.formatted
  }
}
