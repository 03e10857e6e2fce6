# Credentials and the service address come from the environment, so that
# no secret ends up in configuration or in version control:
#
#   export COMMERCE_CLIENT_ID="..."
#   export COMMERCE_CLIENT_SECRET="..."
#   export COMMERCE_BASE_URL="https://api.example.com"
#
# Every argument below is optional; the values suit a store whose rate limit
# is shared with other integrations.
provider "commerce" {
  page_size             = 100   # records per request; 100 is the service's maximum
  max_parallel_requests = 8     # page requests in flight while listing
  rate_limit            = 10    # requests per second, at most: leaves the storefront room
  max_retries           = 5     # retries on 500, 502, 503, 504 and network errors (a 429 uses none)
  request_timeout       = "30s" # time one request attempt may take

  # Opt-in: keep list results, encrypted, so that the next plan asks the
  # store only what changed. A folder of your own on the machine that runs
  # Terraform; delete it to clear the cache.
  cache_dir = pathexpand("~/.cache/commerce-lists")
}
