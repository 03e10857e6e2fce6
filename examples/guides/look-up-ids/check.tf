# A check block: the plan goes on when the account is missing, and warns in
# the words of the assertion. A list of the accounts with that name, not a
# lookup: a lookup that finds nothing fails, and inside a check its own
# error would be the warning, with the assertion never evaluated.
check "partner_account" {
  data "commerce_accounts" "partner" {
    where           = [{ attribute = "name", op = "eq", value = "Globex Partners" }]
    include_records = false
  }

  assert {
    condition     = length(data.commerce_accounts.partner.ids) == 1
    error_message = "The partner account is not in this store yet: ask the store's admins to create it."
  }
}
