data "commerce_account" "sterling" {
  filter = "like(name,Sterling Labs*)"
}
