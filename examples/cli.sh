#!/usr/bin/env bash
# The `nl2sql` command on the demo sources (no configuration needed).
set -euo pipefail
nl2sql ask "How many orders were placed in 2024?"
nl2sql ask "What is the total quantity sold per product category?" --json
nl2sql ask "How many support tickets are there per priority?" --datasource crm
nl2sql ask "What is the weather today?" || echo "exit code $? (not answerable)"
