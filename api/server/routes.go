package server

import "strings"

// Query parameters shared by the listings (api.md 4.6).
var listParams = []param{
	{Name: "searchText", Type: "string", Desc: "full-text match over name, description and path; words match as prefixes"},
	{Name: "sortBy", Type: "string", Desc: "name, description, createdOn or modifiedOn"},
	{Name: "sortDirection", Type: "string", Desc: "ASC or DESC"},
	{Name: "page", Type: "integer", Desc: "page number from 0"},
	{Name: "pageSize", Type: "integer", Desc: "1 to 100 (default 20)"},
}

// repoListParams are listParams for a group's repositories, which sort by two more keys.
var repoListParams = func() []param {
	ps := append([]param(nil), listParams...)
	ps[1].Desc = "name, description, createdOn, modifiedOn, pathSegment or id; anything else is 400"
	return ps
}()

var (
	rdfTypes    = statementTypes
	sparqlTypes = []string{"application/sparql-results+json", "application/json", "application/sparql-results+xml", "text/csv", "text/tab-separated-values"}
	sparqlQuery = []param{
		{Name: "query", Type: "string", Desc: "the SPARQL query", Required: true},
		{Name: "default-graph-uri", Type: "string", Desc: "publication added to the default graph", Repeat: true},
		{Name: "named-graph-uri", Type: "string", Desc: "publication added as a named graph", Repeat: true},
	}
	sparqlPostQuery = []param{
		{Name: "default-graph-uri", Type: "string", Desc: "publication added to the default graph", Repeat: true},
		{Name: "named-graph-uri", Type: "string", Desc: "publication added as a named graph", Repeat: true},
	}
	octet = []string{"application/octet-stream"}
)

// table is every route the API answers. v3 is documented in the Swagger document; v4, v2 and /ns are not part of
// it (info.version is v3) but go through the same dispatcher, authentication and handlers.
func (s *Server) table() []*route {
	rs := []*route{
		// 4.1 Groups
		{Method: "GET", Pattern: "/api/v3/groups", OpID: "getTopGroups", Tag: "groups", Summary: "top-level groups the caller may see", Query: listParams, Resp: GroupViewPage{}, h: s.getTopGroups},
		{Method: "POST", Pattern: "/api/v3/groups", OpID: "createTopGroup", Tag: "groups", Summary: "create a top-level group", Body: "json:Group", Resp: Group{}, h: s.createTopGroup},
		{Method: "GET", Pattern: "/api/v3/groups/{id}", OpID: "getGroupDetails", Tag: "groups", Summary: "a group", Resp: GroupView{}, h: s.getGroupDetails},
		{Method: "DELETE", Pattern: "/api/v3/groups/{id}", OpID: "deleteGroup", Tag: "groups", Summary: "delete an empty group (OWNER)", Resp: Group{}, h: s.deleteGroup},
		{Method: "PATCH", Pattern: "/api/v3/groups/{id}", OpID: "updatePartialGroup", Tag: "groups", Summary: "change the supplied fields (MANAGER; moving needs OWNER)", Body: "json:GroupPartial", Resp: Group{}, h: s.updatePartialGroup},
		{Method: "POST", Pattern: "/api/v3/groups/{id}", OpID: "createSubGroup", Tag: "groups", Summary: "create a subgroup (MANAGER)", Body: "json:Group", Resp: Group{}, h: s.createSubGroup},
		{Method: "GET", Pattern: "/api/v3/groups/{id}/subgroups", OpID: "getSubGroups", Tag: "groups", Summary: "direct subgroups", Query: listParams, Resp: GroupViewPage{}, h: s.getSubGroups},
		// 4.2 Repositories
		{Method: "GET", Pattern: "/api/v3/repositories", OpID: "getRepositoriesWithAccessStatus", Tag: "repositories", Summary: "repositories on which the caller holds a role", Resp: []RepositoryView{}, h: s.getRepositoriesWithAccessStatus},
		{Method: "POST", Pattern: "/api/v3/repositories", OpID: "createRepositoryInGroup", Tag: "repositories", Summary: "create a repository in group parentId (MANAGER)", Body: "json:RepositoryDataInput", Resp: Repository{}, h: s.createRepositoryInGroup},
		{Method: "GET", Pattern: "/api/v3/repositories/{id}", OpID: "getRepositoryMetadata", Tag: "repositories", Summary: "a repository", Resp: RepositoryData{}, h: s.getRepositoryMetadata},
		{Method: "PATCH", Pattern: "/api/v3/repositories/{id}", OpID: "updateRepository", Tag: "repositories", Summary: "change the supplied fields (MANAGER)", Body: "json:RepositoryPartial", Resp: RepositoryData{}, h: s.updateRepository},
		{Method: "DELETE", Pattern: "/api/v3/repositories/{id}", OpID: "deleteRepository", Tag: "repositories", Summary: "delete a repository (OWNER)", Resp: Repository{}, h: s.deleteRepository},
		{Method: "GET", Pattern: "/api/v3/groups/{groupId}/repositories", OpID: "getRepositories", Tag: "repositories", Summary: "repositories of a group", Query: repoListParams, Resp: RepositoryPage{}, h: s.getRepositories},
		// 4.3 Publications
		{Method: "GET", Pattern: "/api/v3/repositories/{repositoryId}/publications", OpID: "getRepositoryPublications", Tag: "publications", Summary: "publications of a repository", Resp: []PublicationListItem{}, h: s.getRepositoryPublications},
		{Method: "POST", Pattern: "/api/v3/repositories/{repositoryId}/publications", OpID: "createPublication", Tag: "publications", Summary: "create a publication (PUBLISHER)", Body: "multipart:metadata,content", Resp: PublicationView{}, h: s.createPublication},
		{Method: "PUT", Pattern: "/api/v3/repositories/{repositoryId}/publications", OpID: "updatePublication", Tag: "publications", Summary: "add a version to the publication named by publicationUri or name (PUBLISHER)", Body: "multipart:meta-data,Content", Resp: PublicationView{}, h: s.updatePublication},
		{Method: "GET", Pattern: "/api/v3/publications/{id}", OpID: "getPublicationMetaData", Tag: "publications", Summary: "meta-data of a publication", Query: []param{{Name: "version", Type: "string", Desc: "a version label or id (default: latest)"}}, Resp: PublicationView{}, h: s.getPublicationMetaData},
		{Method: "PATCH", Pattern: "/api/v3/publications/{id}", OpID: "updatePublicationMetadata", Tag: "publications", Summary: "change the supplied meta-data (PUBLISHER)", Body: "json:PublicationMetaPatch", Query: []param{{Name: "publisher", Type: "string"}, {Name: "owner", Type: "string"}, {Name: "description", Type: "string"}}, Resp: PublicationView{}, h: s.updatePublicationMetadata},
		{Method: "DELETE", Pattern: "/api/v3/publications/{id}", OpID: "deletePublication", Tag: "publications", Summary: "delete a publication (PUBLISHER)", Resp: PublicationView{}, h: s.deletePublication},
		{Method: "GET", Pattern: "/api/v3/publications/{id}/versions", OpID: "getPublicationVersions", Tag: "publications", Summary: "meta-data of every version", Resp: VersionList{}, h: s.getPublicationVersions},
		{Method: "GET", Pattern: "/api/v3/publications.delta", OpID: "findDeltaForPublicationVersions", Tag: "publications", Summary: "delta B minus A as a dataset with added and removed graphs", Query: []param{{Name: "version1", Type: "string", Required: true, Desc: "publication or version id A"}, {Name: "version2", Type: "string", Required: true, Desc: "publication or version id B"}}, Produces: deltaTypes, h: s.findDeltaForPublicationVersions},
		{Method: "GET", Pattern: "/api/v3/publications/{id}/statements", OpID: "getPublicationContent", Tag: "publications", Summary: "the publication as RDF", Query: []param{{Name: "version", Type: "string", Desc: "a version label or id (default: latest)"}}, Produces: rdfTypes, h: s.getPublicationContent},
		{Method: "GET", Pattern: "/api/v3/publications/{id}/sparql", OpID: "executeSparqlQueryGet", Tag: "publications", Summary: "SPARQL query", Query: sparqlQuery, Produces: sparqlTypes, h: s.sparql},
		{Method: "POST", Pattern: "/api/v3/publications/{id}/sparql", OpID: "executeSparqlQueryPost", Tag: "publications", Summary: "SPARQL query in the body", Query: sparqlPostQuery, Body: "sparql", Produces: sparqlTypes, h: s.sparql},
		// 4.4 Files
		{Method: "GET", Pattern: "/api/v3/repositories/{repositoryId}/files", OpID: "getRepositoryFiles", Tag: "files", Summary: "files of a repository", Resp: []FileInfo{}, h: s.getRepositoryFiles},
		{Method: "POST", Pattern: "/api/v3/repositories/{repositoryId}/files", OpID: "addFile", Tag: "files", Summary: "add a file (PUBLISHER)", Body: "multipart:fileInfo,content", Resp: FileInfo{}, h: s.addFile},
		{Method: "GET", Pattern: "/api/v3/repositories/{repositoryId}/{filename}", OpID: "getFileContent", Tag: "files", Summary: "a file's bytes by name", Produces: octet, h: s.getFileContent},
		{Method: "GET", Pattern: "/api/v3/repositories/{repositoryId}/{filename}/versions/{version}", OpID: "getVersionOfFileContent", Tag: "files", Summary: "a file version's bytes by name", Produces: octet, h: s.getVersionOfFileContent},
		{Method: "GET", Pattern: "/api/v3/files/{id}", OpID: "getFile", Tag: "files", Summary: "a file's meta-data", Resp: FileInfo{}, h: s.getFile},
		{Method: "PUT", Pattern: "/api/v3/files/{id}", OpID: "updateNonVersionFile", Tag: "files", Summary: "replace a file's content (PUBLISHER)", Body: "multipart:content", Query: []param{{Name: "versionLabel", Type: "string", Desc: "label of the new version (CUSTOM)"}}, Resp: FileInfo{}, h: s.updateNonVersionFile},
		{Method: "DELETE", Pattern: "/api/v3/files/{id}", OpID: "deleteFile", Tag: "files", Summary: "delete a file (PUBLISHER)", Resp: FileInfo{}, h: s.deleteFile},
		{Method: "GET", Pattern: "/api/v3/files/{id}/content", OpID: "downloadFile", Tag: "files", Summary: "a file's bytes", Query: []param{{Name: "version", Type: "string"}}, Produces: octet, h: s.downloadFile},
		// The machine-readable description itself.
		{Method: "GET", Pattern: "/api/v3/swagger.json", OpID: "getSwagger", Tag: "meta", Summary: "this Swagger 2.0 document", Anon: true, h: s.swagger},
		// v4 (api.md 4.7)
		{Method: "GET", Pattern: "/api/v4/repositories", OpID: "v4Repositories", h: s.v4Repositories},
		{Method: "GET", Pattern: "/api/v4/publications", OpID: "v4Publications", h: s.v4Publications},
		// The change feed read replicas follow (docs/scaling.md).
		{Method: "GET", Pattern: "/api/v4/changes", OpID: "v4Changes", h: s.changes},
	}
	return append(rs, append(s.v2Routes(), s.nsRoutes()...)...)
}

// v2Routes map api.md 4.8 onto the v3 handlers, under both spellings of the repositories segment.
func (s *Server) v2Routes() []*route {
	var rs []*route
	// body is the v3 route's Body, for the routes that read one.
	add := func(method, pattern string, h handlerFunc, body ...string) {
		rs = append(rs, &route{Method: method, Pattern: pattern, OpID: "v2", Body: strings.Join(body, ""), h: h})
	}
	add("GET", "/api/v2/groups", s.getTopGroups)
	add("POST", "/api/v2/groups", s.createTopGroup, "json:Group")
	add("GET", "/api/v2/groups/{id}", s.getGroupDetails)
	add("DELETE", "/api/v2/groups/{id}", s.deleteGroup)
	add("PATCH", "/api/v2/groups/{id}", s.updatePartialGroup, "json:GroupPartial")
	add("POST", "/api/v2/groups/{id}", s.createSubGroup, "json:Group")
	add("GET", "/api/v2/groups/{id}/subgroups", s.getSubGroups)
	for _, seg := range []string{"respositories", "repositories"} {
		base := "/api/v2/" + seg
		add("GET", base, s.getRepositoriesWithAccessStatus)
		add("POST", base, s.createRepositoryInGroup, "json:RepositoryDataInput")
		add("GET", base+"/{id}", s.getRepositoryMetadata)
		add("DELETE", base+"/{id}", s.deleteRepository)
		add("PATCH", base+"/{id}", s.updateRepository, "json:RepositoryPartial")
		add("GET", base+"/{groupId}/repositories", s.getRepositories)
		add("GET", base+"/{repositoryId}/publications", s.v2Publications)
		add("POST", base+"/{repositoryId}/publications", s.createPublication, "multipart:metadata,content")
		add("PUT", base+"/{repositoryId}/publications", s.updatePublication, "multipart:meta-data,Content")
		add("PATCH", base+"/{repositoryId}/publications", s.v2Named(s.updatePublicationMetadata), "json:PublicationMetaPatch")
		add("GET", base+"/{repositoryId}/publications/publication", s.v2Named(s.getPublicationContent))
		add("DELETE", base+"/{repositoryId}/publications/publication", s.v2Named(s.deletePublication))
		add("GET", base+"/{repositoryId}/publications/sparql", s.v2Named(s.sparql))
		add("POST", base+"/{repositoryId}/publications/sparql", s.v2Named(s.sparql))
	}
	return rs
}

// nsRoutes are the legacy routes of api.md 4.9; P's five segments form the publication's name.
func (s *Server) nsRoutes() []*route {
	const p = "/ns/{repository}/{accessibility}/{status}/{context}/{function}/{name}"
	var rs []*route
	add := func(method, pattern string, anon bool, h handlerFunc, body ...string) {
		rs = append(rs, &route{Method: method, Pattern: pattern, OpID: "ns", Anon: anon, Body: strings.Join(body, ""), h: h})
	}
	add("GET", "/ns/{repository}", true, s.nsRepo(s.getRepositoryPublications))
	add("POST", "/ns/{repository}", false, s.nsRepo(s.createPublication), "multipart:metadata,content")
	// The publication and version URLs answer SPARQL too (a GET with query=, or a POST), as direct URLs do.
	add("GET", p, true, s.nsPub(orSPARQL(s.getPublicationContent, s.sparql)))
	add("POST", p, true, s.nsPub(s.sparql))
	add("PUT", p, false, s.nsPub(s.nsUpdate), "multipart:Content")
	add("DELETE", p, false, s.nsPub(s.deletePublication))
	add("GET", p+"/sparql", true, s.nsPub(s.sparql))
	add("POST", p+"/sparql", true, s.nsPub(s.sparql))
	add("GET", p+"/versions", true, s.nsPub(s.getPublicationVersions))
	add("GET", p+"/versions/{version}", true, s.nsPub(orSPARQL(s.nsVersionContent, s.nsVersionSPARQL)))
	add("POST", p+"/versions/{version}", true, s.nsPub(s.nsVersionSPARQL))
	add("DELETE", p+"/versions/{version}", false, s.nsPub(s.nsDeleteVersion))
	add("GET", p+"/versions/{version}/sparql", true, s.nsPub(s.nsVersionSPARQL))
	add("POST", p+"/versions/{version}/sparql", true, s.nsPub(s.nsVersionSPARQL))
	return rs
}
