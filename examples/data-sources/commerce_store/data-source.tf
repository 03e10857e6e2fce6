# The store behind the provider's credentials, and the limits its settings
# put on lists.
data "commerce_store" "this" {}

output "store" {
  value = {
    id                = data.commerce_store.this.id
    name              = data.commerce_store.this.name
    page_offset_limit = data.commerce_store.this.page_offset_limit
    filter_limit      = data.commerce_store.this.filter_limit
  }
}
