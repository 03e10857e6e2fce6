# Runs against the store the COMMERCE_* variables name: the emulator in a
# pipeline (see the guide), a sandbox store by hand.
run "finds_the_account" {
  command = plan

  variables {
    account_name = "Acme, Inc."
  }

  assert {
    condition     = can(regex("^[0-9a-f-]{36}$", output.account_id))
    error_message = "The module found no account id for Acme, Inc."
  }
}
