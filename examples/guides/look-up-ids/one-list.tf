variable "wanted" {
  type    = set(string)
  default = ["Acme, Inc.", "O'Brien & Sons", "東京商事"]
}

# Many names, one listing: every account's name and id (100 accounts a
# request), grouped by name into a map once, then one lookup in the map
# per name. Building the map once matters: a for expression that searches
# the whole list for each name costs Terraform names × accounts.
data "commerce_accounts" "all" {}

locals {
  account_ids_by_name = { for a in data.commerce_accounts.all.accounts : a.name => a.id... }
  not_exactly_one     = [for name in var.wanted : name if length(lookup(local.account_ids_by_name, name, [])) != 1]
  account_ids = {
    for name in var.wanted : name => local.account_ids_by_name[name][0] if !contains(local.not_exactly_one, name)
  }
}

# A name that no account has, or two have, fails the plan, naming it: the
# guarantee a lookup per name gives.
output "listed_account_ids" {
  value = local.account_ids

  precondition {
    condition     = length(local.not_exactly_one) == 0
    error_message = "No account, or more than one, is named ${join(", ", local.not_exactly_one)}."
  }
}
