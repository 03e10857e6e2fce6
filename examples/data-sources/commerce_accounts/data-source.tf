# Accounts whose names start with "O'Brien" or end in "GmbH". Names with
# commas, quotes, & or non-ASCII text need no escaping in where: the
# provider quotes every value (like matches * as any run of characters).
data "commerce_accounts" "obrien" {
  where = [{ attribute = "name", op = "like", value = "O'Brien*" }]
  sort  = "name"
}

# Accounts by their reference in a CRM, crm-000010 to crm-000019: the
# service compares external_ref with eq and like (in is for ids).
data "commerce_accounts" "named" {
  where = [
    { attribute = "external_ref", op = "like", value = "crm-00001*" },
  ]
  sort = "name"
}

# The same kind of condition written as filter text: a value with a comma,
# parenthesis or quote must be quoted ("..." or '...').
data "commerce_accounts" "acme" {
  filter = "eq(name,\"Acme, Inc.\")"
}

# Every account, ids only: one string per account in the state.
data "commerce_accounts" "all_ids" {
  include_records = false
}

# The five newest accounts created in the first week of 2024.
data "commerce_accounts" "first_week" {
  filter      = "ge(created_at,2024-01-01T00:00:00.000Z):lt(created_at,2024-01-08T00:00:00.000Z)"
  sort        = "-created_at"
  max_results = 5
}

output "account_ids_by_name" {
  value = { for a in data.commerce_accounts.named.accounts : a.name => a.id }
}

output "acme_registration_id" {
  value = one(data.commerce_accounts.acme.accounts[*].registration_id)
}

output "obrien_accounts" {
  value = data.commerce_accounts.obrien.accounts[*].name
}

output "account_count" {
  value = length(data.commerce_accounts.all_ids.ids)
}

output "first_week" {
  value = {
    matching = data.commerce_accounts.first_week.total
    newest   = data.commerce_accounts.first_week.accounts[*].name
  }
}
