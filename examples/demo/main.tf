# A tour of the commerce provider against the local emulator's default data.
# `make demo` runs it end to end. By hand, with a local build installed as
# the README's "Use a local build" says (make install, a CLI configuration
# with dev_overrides in TF_CLI_CONFIG_FILE):
#
#   go run ./cmd/commerce-emulator -addr 127.0.0.1:8080 &
#   export COMMERCE_BASE_URL=http://127.0.0.1:8080
#   export COMMERCE_CLIENT_ID=emulator-client-id
#   export COMMERCE_CLIENT_SECRET=emulator-client-secret
#   terraform apply        # no terraform init: dev_overrides supplies the provider
#
# Try `terraform plan -var='expected_accounts=["Acme, Inc.","No Such Ltd"]'`
# to see the postcondition in (c) stop the plan.

terraform {
  required_version = ">= 1.5.0"
  required_providers {
    commerce = {
      source = "commerce-tf/commerce"
    }
  }
}

# Credentials and address come from the COMMERCE_* environment variables.
provider "commerce" {}

variable "account_name" {
  description = "Name of the account whose id the configuration needs."
  type        = string
  default     = "Acme, Inc."
}

variable "expected_accounts" {
  description = "Accounts that must exist for this configuration to make sense."
  type        = list(string)
  default     = ["Acme, Inc.", "O'Brien & Sons", "Müller & Söhne GmbH", "東京商事"]
}

# (a) An account id looked up by name, for whatever needs the id.
data "commerce_account" "customer" {
  name = var.account_name
}

resource "terraform_data" "customer" {
  input = {
    account_id      = data.commerce_account.customer.id
    legal_name      = data.commerce_account.customer.legal_name
    registration_id = data.commerce_account.customer.registration_id
  }
}

# (b) Paid orders that still wait for processing, five newest first, one
# resource instance per order.
data "commerce_orders" "to_fulfil" {
  where = [
    { attribute = "status", op = "eq", value = "processing" },
    { attribute = "payment", op = "eq", value = "paid" },
  ]
  sort        = "-created_at"
  max_results = 5
}

resource "terraform_data" "fulfilment" {
  for_each = { for o in data.commerce_orders.to_fulfil.orders : o.order_number => o }

  input = {
    order_id = each.value.id
    customer = each.value.customer_name
    amount   = format("%.2f %s", each.value.amount_with_tax / 100, each.value.currency)
  }
}

# (c) Fail the plan when an expected account is missing. A postcondition
# stops the run; a check block would only warn. The service filters names
# with eq and like only, so the check reads every account's name.
data "commerce_accounts" "expected" {
  lifecycle {
    postcondition {
      condition     = length(setsubtract(var.expected_accounts, self.accounts[*].name)) == 0
      error_message = "Missing accounts: ${jsonencode(setsubtract(var.expected_accounts, self.accounts[*].name))}."
    }
  }
}

output "customer_account_id" {
  description = "Id of the account found by name."
  value       = data.commerce_account.customer.id
}

output "orders_to_fulfil" {
  description = "Paid orders in processing (newest five), by order number."
  value       = { for number, o in terraform_data.fulfilment : number => "${o.input.customer}: ${o.input.amount}" }
}

output "orders_to_fulfil_total" {
  description = "How many paid orders wait for processing in all."
  value       = data.commerce_orders.to_fulfil.total
}

output "expected_account_ids" {
  description = "Ids of the expected accounts, by name."
  value       = { for a in data.commerce_accounts.expected.accounts : a.name => a.id if contains(var.expected_accounts, a.name) }
}
