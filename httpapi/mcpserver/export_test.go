package mcpserver

// ReportReadFactor exposes reportReadFactor to the tests of the API
// server's admission.
const ReportReadFactor = reportReadFactor
