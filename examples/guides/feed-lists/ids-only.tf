# When only ids are needed, include_records = false keeps one string per
# record in the state: about 25 times less memory for Terraform.
data "commerce_accounts" "all" {
  include_records = false
}

resource "terraform_data" "account_ids" {
  input = data.commerce_accounts.all.ids
}

# The ten newest orders, read with one request: max_results stops the
# listing as soon as it has them.
data "commerce_orders" "newest" {
  sort        = "-created_at"
  max_results = 10
}

# Files of at least 1 MiB: a filter that narrows the list on the service.
data "commerce_files" "large" {
  filter          = "ge(file_size,1048576)"
  sort            = "-file_size"
  include_records = false
}

output "counts" {
  value = {
    accounts    = length(data.commerce_accounts.all.ids)
    newest      = data.commerce_orders.newest.ids
    large_files = data.commerce_files.large.total
  }
}
