# A check block: the plan goes on when the account is missing, and says so
# as a warning. The lookup inside the block is read only for the check.
check "partner_account" {
  data "commerce_account" "partner" {
    name = "Globex Partners"
  }

  assert {
    condition     = data.commerce_account.partner.id != null
    error_message = "The partner account is not in this store yet: ask the store's admins to create it."
  }
}
