package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
)

// NewAccountDataSource is commerce_account: one account by id, by a unique attribute, or by a filter.
func NewAccountDataSource() datasource.DataSource {
	return &lookupDataSource[client.Account]{rt: accountType}
}
