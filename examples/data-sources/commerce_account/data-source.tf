# An account by its exact name; commas, quotes and non-ASCII text need no
# escaping here.
data "commerce_account" "acme" {
  name = "Acme, Inc."
}

data "commerce_account" "tokyo" {
  name = "東京商事"
}

# By legal name or registration id, also unique.
data "commerce_account" "muller" {
  legal_name = "Müller & Söhne GmbH Ltd."
}

data "commerce_account" "by_registration" {
  registration_id = "RC01048274"
}

# By a filter that matches exactly one account. A value containing ' is
# quoted with "...".
data "commerce_account" "obrien" {
  filter = "eq(name,\"O'Brien & Sons\")"
}

# The id found by name picks Acme's subsidiaries out of every account (the
# service cannot filter accounts by parent).
data "commerce_accounts" "all" {}

locals {
  acme_subsidiaries = [for a in data.commerce_accounts.all.accounts : a.name if a.parent_id == data.commerce_account.acme.id]
}

output "acme_account_id" {
  value = data.commerce_account.acme.id
}

output "same_account" {
  value = data.commerce_account.acme.id == data.commerce_account.by_registration.id
}

output "account_names" {
  value = [
    data.commerce_account.tokyo.name,
    data.commerce_account.muller.name,
    data.commerce_account.obrien.name,
  ]
}

output "acme_subsidiaries" {
  value = local.acme_subsidiaries
}
