# The complete orders of 2 January 2024. consistency_buffer leaves
# out orders created in the last minute, which the service may not show
# everywhere yet, so that two plans agree.
data "commerce_orders" "week" {
  filter             = "eq(status,complete):ge(created_at,2024-01-02):lt(created_at,2024-01-03)"
  consistency_buffer = "60s"
}

# One resource per order, keyed by the order's id: an order that comes or
# goes adds or removes one instance, and the others stay as they are.
resource "terraform_data" "invoice" {
  for_each = { for o in data.commerce_orders.week.orders : o.id => o }

  input = {
    number = each.value.order_number
    amount = each.value.amount_with_tax
  }
}
