package provider

import (
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
)

// newFileDataSource is commerce_file: one file by id, by a unique attribute, or by a filter.
func newFileDataSource() datasource.DataSource {
	return &lookupDataSource[commerce.File]{rt: fileType}
}
