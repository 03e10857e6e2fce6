package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
)

// NewFileDataSource is commerce_file: one file by id, by a unique attribute, or by a filter.
func NewFileDataSource() datasource.DataSource {
	return &lookupDataSource[client.File]{rt: fileType}
}
