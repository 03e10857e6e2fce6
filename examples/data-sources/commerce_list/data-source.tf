# Every customer created in 2024, however many: the provider knows that
# /v2/customers sorts and filters by created_at, and lists past the
# service's 10,000-record offset limit in keyset windows.
data "commerce_list" "customers_2024" {
  path            = "/v2/customers"
  filter          = "ge(created_at,2024-01-01T00:00:00.000Z):lt(created_at,2025-01-01T00:00:00.000Z)"
  include_records = false
}

# Hierarchies of the product catalogue: the service cannot sort or filter
# them, so the provider lists them in the service's order and sorts them.
# Each record's JSON holds what the typed attributes do not.
data "commerce_list" "hierarchies" {
  path = "/pcm/hierarchies"
  sort = "name"
}

# The three newest customers, and for each one its orders: a map keyed by
# id feeds for_each (the form Terraform plans fastest, see the "Feed lists"
# guide).
data "commerce_list" "newest_customers" {
  path        = "/v2/customers"
  sort        = "-created_at"
  max_results = 3
}

data "commerce_orders" "by_customer" {
  for_each        = { for id in data.commerce_list.newest_customers.ids : id => id }
  filter          = "eq(customer_id,${each.key})"
  include_records = false
}

output "customers_created_in_2024" {
  value = data.commerce_list.customers_2024.total
}

output "hierarchy_ids_by_name" {
  value = { for h in data.commerce_list.hierarchies.records : jsondecode(h.json).attributes.name => h.id }
}

output "order_count_by_customer" {
  value = { for id, orders in data.commerce_orders.by_customer : id => orders.total }
}
