"""What users look at: tables (md/csv/json/latex), figures, the HTML report and the document viewer."""
