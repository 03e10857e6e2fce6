package provider

import (
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
)

// newAccountDataSource is commerce_account: one account by id, by a unique attribute, or by a filter.
func newAccountDataSource() datasource.DataSource {
	return &lookupDataSource[commerce.Account]{rt: accountType}
}
