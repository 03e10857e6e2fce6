# Thousands of instances: one resource per account, spread over module
# instances by the last two characters of the account's id (256 of them
# for the service's ids, which are UUIDs), so that no resource holds more
# than a few dozen instances. An id never changes: an account that comes
# or goes adds or removes one instance in one module instance, and the
# others stay as they are.
data "commerce_accounts" "every" {
  include_records = false
}

locals {
  account_ids_by_suffix = { for id in data.commerce_accounts.every.ids : substr(id, -2, 2) => id... }
}

module "account" {
  source   = "./account"
  for_each = local.account_ids_by_suffix

  account_ids = each.value
}
