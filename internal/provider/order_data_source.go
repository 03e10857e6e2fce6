package provider

import (
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
)

// newOrderDataSource is commerce_order: one order by id, by a unique attribute, or by a filter.
func newOrderDataSource() datasource.DataSource {
	return &lookupDataSource[commerce.Order]{rt: orderType}
}
