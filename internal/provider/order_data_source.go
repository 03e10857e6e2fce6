package provider

import (
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
)

// NewOrderDataSource is commerce_order: one order by id, by a unique attribute, or by a filter.
func NewOrderDataSource() datasource.DataSource {
	return &lookupDataSource[commerce.Order]{rt: orderType}
}
