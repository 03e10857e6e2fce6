# An order by its order number.
data "commerce_order" "by_number" {
  order_number = "ORD-0000001"
}

# The same order by its reference in the shop system, with its raw JSON.
data "commerce_order" "by_ref" {
  external_ref = "shop-100001"
  include_json = true
}

# By id, here taken from the lookup above.
data "commerce_order" "by_id" {
  id = data.commerce_order.by_number.id
}

# By a filter, which must match exactly one order.
data "commerce_order" "by_filter" {
  filter = "eq(order_number,ORD-0000002):ge(created_at,2024-01-01T00:00:00.000Z)"
}

output "first_order" {
  value = {
    id       = data.commerce_order.by_id.id
    status   = data.commerce_order.by_number.status
    customer = data.commerce_order.by_number.customer_name
    total    = jsondecode(data.commerce_order.by_ref.json).meta.display_price.with_tax.formatted
  }
}

output "second_order_amount" {
  value = format("%.2f %s", data.commerce_order.by_filter.amount_with_tax / 100, data.commerce_order.by_filter.currency)
}
