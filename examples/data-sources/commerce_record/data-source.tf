# One customer by email (emails are unique): the filter must match
# exactly one, or the read fails saying how many it found.
data "commerce_record" "customer" {
  path   = "/v2/customers"
  filter = "like(email,*.1@example.*)"
}

# One hierarchy by id, read from /pcm/hierarchies/{id}.
data "commerce_list" "first_hierarchy" {
  path        = "/pcm/hierarchies"
  max_results = 1
}

data "commerce_record" "hierarchy" {
  path = "/pcm/hierarchies"
  id   = one(data.commerce_list.first_hierarchy.ids)
}

output "customer" {
  value = {
    id   = data.commerce_record.customer.id
    name = jsondecode(data.commerce_record.customer.json).name
  }
}

output "hierarchy_name" {
  value = jsondecode(data.commerce_record.hierarchy.json).attributes.name
}
