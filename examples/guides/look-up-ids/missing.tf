data "commerce_account" "typo" {
  name = "Acme Inc."
}
