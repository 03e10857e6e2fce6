# A module that finds an account by name and the account's open orders.
terraform {
  required_providers {
    commerce = {
      source = "commerce-tf/commerce"
    }
  }
}

variable "account_name" {
  description = "Exact name of the account."
  type        = string
}

data "commerce_account" "this" {
  name = var.account_name
}

data "commerce_orders" "open" {
  where = [
    { attribute = "account_id", op = "eq", value = data.commerce_account.this.id },
    { attribute = "status", op = "eq", value = "incomplete" },
  ]
  include_records = false
}

output "account_id" {
  value = data.commerce_account.this.id
}

output "open_order_ids" {
  value = data.commerce_orders.open.ids
}
