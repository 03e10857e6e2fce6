# By a unique attribute: an account by its exact name. Commas, quotes and
# non-ASCII text need no escaping.
data "commerce_account" "acme" {
  name = "Acme, Inc."
}

# By id: an id another configuration exported, or one found above.
data "commerce_account" "acme_again" {
  id = data.commerce_account.acme.id
}

# An order by its order number, another unique attribute.
data "commerce_order" "first" {
  order_number = "ORD-0000001"
}

# By a filter that must match exactly one record, on any endpoint.
data "commerce_record" "customer" {
  path   = "/v2/customers"
  filter = "like(email,*.1@example.*)"
}

output "ids" {
  value = {
    acme     = data.commerce_account.acme.id
    order    = data.commerce_order.first.id
    customer = data.commerce_record.customer.id
  }
}
