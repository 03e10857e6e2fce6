# Accounts by exact name. Names with commas, quotes, & or non-ASCII text need
# no escaping in where: the provider quotes every value.
data "commerce_accounts" "named" {
  where = [
    {
      attribute = "name"
      op        = "in"
      values    = ["Acme, Inc.", "O'Brien & Sons", "Müller & Söhne GmbH", "東京商事"]
    },
  ]
  sort = "name"
}

# The same kind of condition written as filter text: a value with a comma,
# parenthesis or quote must be quoted ("..." or '...').
data "commerce_accounts" "acme" {
  filter = "eq(name,\"Acme, Inc.\")"
}

# Subsidiaries of the accounts above: their ids feed the next filter.
data "commerce_accounts" "subsidiaries" {
  where = [
    { attribute = "parent_id", op = "in", values = data.commerce_accounts.named.ids },
  ]
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

output "subsidiaries" {
  value = { for a in data.commerce_accounts.subsidiaries.accounts : a.name => a.parent_id }
}

output "first_week" {
  value = {
    matching = data.commerce_accounts.first_week.total
    newest   = data.commerce_accounts.first_week.accounts[*].name
  }
}
