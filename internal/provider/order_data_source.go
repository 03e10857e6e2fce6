package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
)

// NewOrderDataSource is commerce_order: one order by id, by a unique attribute, or by a filter.
func NewOrderDataSource() datasource.DataSource {
	return &lookupDataSource[client.Order]{rt: orderType}
}
