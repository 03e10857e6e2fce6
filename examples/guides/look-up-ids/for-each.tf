variable "account_names" {
  type    = set(string)
  default = ["Acme, Inc.", "O'Brien & Sons", "東京商事"]
}

# One lookup per name: each is one request, and a name that matches no
# account, or several, fails the plan naming it.
data "commerce_account" "team" {
  for_each = var.account_names
  name     = each.key
}

output "account_ids" {
  value = { for name, account in data.commerce_account.team : name => account.id }
}
