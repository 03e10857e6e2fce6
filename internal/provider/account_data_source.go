package provider

import (
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
)

// NewAccountDataSource is commerce_account: one account by id, by a unique attribute, or by a filter.
func NewAccountDataSource() datasource.DataSource {
	return &lookupDataSource[commerce.Account]{rt: accountType}
}
