"""Pure statistics: DataFrames in, frozen results out. Nothing here reads files, SQL or Streamlit."""
