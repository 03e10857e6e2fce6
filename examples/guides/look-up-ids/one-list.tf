variable "wanted" {
  type    = set(string)
  default = ["Acme, Inc.", "O'Brien & Sons", "東京商事"]
}

# Many names, one listing: every account's name and id (about 100 accounts
# a request), then a map. A name missing from the store fails the plan
# through the postcondition, naming the missing ones.
data "commerce_accounts" "all" {
  lifecycle {
    postcondition {
      condition     = length(setsubtract(var.wanted, self.accounts[*].name)) == 0
      error_message = "No account named ${join(", ", setsubtract(var.wanted, self.accounts[*].name))}."
    }
  }
}

locals {
  account_ids = {
    for a in data.commerce_accounts.all.accounts : a.name => a.id if contains(var.wanted, a.name)
  }
}

output "listed_account_ids" {
  value = local.account_ids
}
