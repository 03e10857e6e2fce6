# One module instance of thousands.tf: the accounts whose ids end in the
# same two characters.
variable "account_ids" {
  type        = list(string)
  description = "The ids of the accounts this instance manages."
}

# A map keyed by id, in a local: the form of for_each that Terraform plans
# fastest for one resource.
locals {
  accounts = { for id in var.account_ids : id => id }
}

resource "terraform_data" "account" {
  for_each = local.accounts

  input = each.key
}
