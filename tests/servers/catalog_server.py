"""A generated MCP server with hundreds of tools, for tool-search tests and benchmarks.

25 areas (calendar, mail, chat, CRM, files, storage, git, issues, databases, DNS, billing, shop, ...),
each with four kinds of things, each with five verbs: 500 tools. The catalog is meant to be hard to
search on purpose: the same verbs everywhere, and nouns shared across areas ("message" in mail, chat
and queues; "event" in calendars, monitoring and analytics; "record" in DNS and databases; "user",
"file", "order", "report", "channel" in several places). Descriptions carry synonyms a person would use.

Every tool answers with a line naming itself and its arguments, so a test can see which one ran.
``python tests/servers/catalog_server.py`` serves it over stdio.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import MCPServer

_VERBS: dict[str, str] = {
    "list": "List {plural}{scope}, newest first, a page at a time.",
    "get": "Get one {noun} by its id, with every field.",
    "create": "Create a new {noun}.",
    "update": "Change fields of an existing {noun}.",
    "delete": "Delete a {noun} for good.",
    "search": "Search {plural} by words or filters.",
    "archive": "Archive a {noun}: hidden from lists but kept.",
    "export": "Export {plural} as CSV or JSON for download.",
    "share": "Share a {noun} with other people and set their access.",
    "send": "Send a {noun}.",
    "cancel": "Cancel a {noun} that is pending.",
    "restore": "Restore a deleted or archived {noun}.",
    "assign": "Assign a {noun} to a person or team.",
    "count": "Count {plural} matching filters.",
    "move": "Move a {noun} somewhere else.",
    "copy": "Make a copy of a {noun}.",
    "start": "Start a {noun}.",
    "stop": "Stop a running {noun}.",
    "approve": "Approve a {noun} that awaits approval.",
    "download": "Download a {noun}'s content.",
    "upload": "Upload a new {noun} from bytes or a path.",
    "schedule": "Schedule a {noun} for a later time.",
    "tag": "Add or remove labels (tags) on a {noun}.",
    "merge": "Merge two {plural} into one.",
    "rename": "Rename a {noun}.",
}

# area: [(object, plural, what it is (synonyms), parameters, five verbs)]
_AREAS: dict[str, list[tuple[str, str, str, list[str], list[str]]]] = {
    "calendar": [
        ("event", "events", "A calendar event: a meeting or appointment with a start, end and attendees.",
         ["title", "start_time", "end_time", "attendees"], ["list", "create", "update", "delete", "search"]),
        ("calendar", "calendars", "A calendar that holds events (work, personal, a team's).",
         ["calendar_name", "time_zone"], ["list", "create", "share", "delete", "rename"]),
        ("availability", "availabilities", "Free and busy time slots of people, to find a time to meet.",
         ["people", "day", "duration_minutes"], ["get", "search", "count", "export", "update"]),
        ("reminder", "reminders", "A reminder notification before an event.",
         ["event_id", "minutes_before"], ["list", "create", "delete", "update", "schedule"]),
    ],
    "mail": [
        ("message", "messages", "An email message in a mailbox, with subject, body, sender and recipients.",
         ["to", "subject", "body", "cc"], ["send", "search", "get", "delete", "move"]),
        ("draft", "drafts", "An unsent email draft.", ["to", "subject", "body"],
         ["create", "update", "send", "list", "delete"]),
        ("folder", "folders", "A mailbox folder such as inbox, sent or a custom folder.", ["folder_name", "parent"],
         ["list", "create", "rename", "delete", "count"]),
        ("attachment", "attachments", "A file attached to an email message.", ["message_id", "filename"],
         ["list", "download", "upload", "delete", "get"]),
    ],
    "chat": [
        ("message", "messages", "A chat message posted in a channel or a direct conversation (Slack-like).",
         ["channel", "text", "thread_id"], ["send", "search", "delete", "update", "list"]),
        ("channel", "channels", "A chat channel (room) where a team talks.", ["channel_name", "private"],
         ["create", "list", "archive", "rename", "get"]),
        ("member", "members", "A person in a chat workspace or channel.", ["user_id", "channel"],
         ["list", "get", "search", "delete", "update"]),
        ("reaction", "reactions", "An emoji reaction to a chat message.", ["message_id", "emoji"],
         ["create", "delete", "list", "count", "get"]),
    ],
    "crm": [
        ("contact", "contacts", "A customer contact person with name, email and phone number.",
         ["name", "email", "phone", "company"], ["create", "update", "search", "delete", "merge"]),
        ("deal", "deals", "A sales deal (opportunity) in the pipeline with an amount and a stage.",
         ["deal_name", "amount", "stage"], ["create", "update", "list", "assign", "archive"]),
        ("company", "companies", "A customer company (account, organization).", ["company_name", "domain"],
         ["create", "get", "search", "update", "merge"]),
        ("note", "notes", "A note logged on a customer record after a call or meeting.", ["record_id", "text"],
         ["create", "list", "delete", "update", "search"]),
    ],
    "files": [
        ("file", "files", "A file on the local disk with a path, size and contents.", ["path", "content"],
         ["get", "create", "delete", "move", "copy"]),
        ("directory", "directories", "A directory (folder) on the local disk.", ["path", "recursive"],
         ["list", "create", "delete", "move", "count"]),
        ("permission", "permissions", "Access rights (read, write, execute) on a file or folder.",
         ["path", "mode"], ["get", "update", "list", "copy", "export"]),
        ("link", "links", "A symbolic link pointing to another file.", ["path", "target"],
         ["create", "get", "delete", "list", "update"]),
    ],
    "storage": [
        ("bucket", "buckets", "A cloud storage bucket (like S3) holding objects.", ["bucket_name", "region"],
         ["create", "list", "delete", "get", "update"]),
        ("object", "objects", "A stored object (blob, file) in a cloud bucket.", ["bucket_name", "key"],
         ["upload", "download", "delete", "list", "copy"]),
        ("policy", "policies", "An access policy on a bucket: who may read or write.", ["bucket_name", "document"],
         ["get", "update", "delete", "list", "create"]),
        ("lifecycle_rule", "lifecycle rules", "A rule that expires or moves old objects to cheaper storage.",
         ["bucket_name", "days"], ["create", "list", "delete", "update", "get"]),
    ],
    "git": [
        ("commit", "commits", "A git commit with a message, author and diff.", ["repo_path", "message"],
         ["list", "get", "create", "search", "export"]),
        ("branch", "branches", "A git branch of a repository.", ["repo_path", "branch_name"],
         ["list", "create", "delete", "merge", "rename"]),
        ("tag", "tags", "A git tag marking a release version.", ["repo_path", "tag_name"],
         ["list", "create", "delete", "get", "search"]),
        ("diff", "diffs", "The changes (diff) between commits, branches or the working tree.",
         ["repo_path", "base", "head"], ["get", "export", "count", "search", "list"]),
    ],
    "issues": [
        ("issue", "issues", "A bug report or feature request (ticket) in an issue tracker.",
         ["title", "body", "labels"], ["create", "update", "search", "assign", "archive"]),
        ("comment", "comments", "A comment on an issue or pull request.", ["issue_id", "body"],
         ["create", "list", "delete", "update", "get"]),
        ("pull_request", "pull requests", "A pull request (merge request) proposing code changes for review.",
         ["title", "head", "base"], ["create", "merge", "list", "approve", "get"]),
        ("milestone", "milestones", "A milestone grouping issues for a release with a due date.",
         ["title", "due_date"], ["create", "list", "update", "delete", "get"]),
    ],
    "database": [
        ("query", "queries", "A SQL query run against a database.", ["sql", "database"],
         ["start", "cancel", "list", "get", "export"]),
        ("table", "tables", "A database table with columns and rows.", ["database", "table_name"],
         ["list", "get", "create", "delete", "rename"]),
        ("record", "records", "A row (record) in a database table.", ["table_name", "values", "where"],
         ["create", "update", "delete", "search", "count"]),
        ("backup", "backups", "A database backup (snapshot) to restore from.", ["database", "backup_id"],
         ["create", "list", "restore", "delete", "download"]),
    ],
    "dns": [
        ("record", "records", "A DNS record (A, CNAME, MX, TXT) of a domain.", ["zone", "record_type", "value"],
         ["create", "update", "delete", "list", "get"]),
        ("zone", "zones", "A DNS zone: the records of one domain name.", ["zone_name"],
         ["create", "list", "delete", "export", "get"]),
        ("certificate", "certificates", "A TLS (SSL) certificate for a domain, with its expiry date.",
         ["domain", "certificate_id"], ["create", "list", "get", "delete", "update"]),
        ("domain", "domains", "A registered domain name and its renewal.", ["domain_name", "years"],
         ["search", "create", "get", "update", "list"]),
    ],
    "billing": [
        ("invoice", "invoices", "An invoice (bill) sent to a customer, with lines, total and due date.",
         ["customer_id", "lines", "due_date"], ["create", "send", "list", "cancel", "download"]),
        ("subscription", "subscriptions", "A recurring subscription plan a customer pays for.",
         ["customer_id", "plan"], ["create", "cancel", "update", "get", "list"]),
        ("payment", "payments", "A card or bank payment received from a customer.", ["amount", "currency"],
         ["list", "get", "search", "export", "count"]),
        ("refund", "refunds", "Money returned to a customer for a payment.", ["payment_id", "amount"],
         ["create", "list", "get", "cancel", "approve"]),
    ],
    "shop": [
        ("order", "orders", "A customer's order in the online shop, with items, total and status.",
         ["order_id", "status"], ["list", "get", "cancel", "update", "search"]),
        ("product", "products", "A product for sale in the shop catalog, with price and stock.",
         ["product_name", "price", "sku"], ["create", "update", "delete", "search", "list"]),
        ("cart", "carts", "A shopping cart (basket) holding items before checkout.", ["cart_id", "items"],
         ["get", "update", "delete", "create", "count"]),
        ("coupon", "coupons", "A discount code (coupon, voucher) customers can redeem.", ["code", "percent_off"],
         ["create", "list", "delete", "update", "get"]),
    ],
    "inventory": [
        ("stock_level", "stock levels", "How many units of an item are in stock at a warehouse.",
         ["sku", "warehouse"], ["get", "update", "list", "export", "count"]),
        ("warehouse", "warehouses", "A warehouse (depot) that stores goods.", ["warehouse_name", "address"],
         ["list", "create", "get", "update", "delete"]),
        ("purchase_order", "purchase orders", "An order placed with a supplier to restock items.",
         ["supplier", "items"], ["create", "approve", "cancel", "list", "get"]),
        ("supplier", "suppliers", "A supplier (vendor) that sells goods to the company.", ["supplier_name", "email"],
         ["create", "list", "update", "delete", "search"]),
    ],
    "shipping": [
        ("shipment", "shipments", "A parcel shipment with a carrier, sent to an address.",
         ["order_id", "carrier", "address"], ["create", "get", "cancel", "list", "update"]),
        ("tracking", "trackings", "Where a parcel is now: its delivery status and tracking number.",
         ["tracking_number"], ["get", "list", "search", "update", "count"]),
        ("label", "labels", "A printable shipping label with postage for a parcel.", ["shipment_id", "format"],
         ["create", "download", "cancel", "get", "list"]),
        ("rate", "rates", "Shipping prices (quotes) from carriers for a parcel's weight and route.",
         ["weight_kg", "from_zip", "to_zip"], ["get", "list", "search", "export", "count"]),
    ],
    "hr": [
        ("employee", "employees", "An employee (staff member) with job title, team and manager.",
         ["name", "team", "job_title"], ["create", "update", "search", "get", "archive"]),
        ("leave_request", "leave requests", "A request for vacation, holiday or sick leave (time off).",
         ["employee_id", "start_date", "end_date"], ["create", "approve", "cancel", "list", "get"]),
        ("payslip", "payslips", "A salary payslip (pay stub) for a month.", ["employee_id", "month"],
         ["get", "list", "download", "send", "export"]),
        ("review", "reviews", "A performance review of an employee.", ["employee_id", "rating"],
         ["create", "list", "update", "get", "schedule"]),
    ],
    "analytics": [
        ("report", "reports", "An analytics report of traffic, visitors and conversions for a date range.",
         ["date_from", "date_to", "metrics"], ["create", "get", "export", "schedule", "list"]),
        ("event", "events", "A tracked analytics event (page view, click, signup) sent by an app.",
         ["event_name", "properties"], ["send", "count", "list", "search", "export"]),
        ("dashboard", "dashboards", "A dashboard of charts and metrics.", ["dashboard_name", "widgets"],
         ["create", "get", "share", "delete", "copy"]),
        ("funnel", "funnels", "A conversion funnel: the share of users who reach each step.", ["steps"],
         ["create", "get", "list", "delete", "update"]),
    ],
    "weather": [
        ("forecast", "forecasts", "The weather forecast (temperature, rain, wind) for the coming days at a place.",
         ["location", "days"], ["get", "list", "export", "search", "count"]),
        ("observation", "observations", "Current weather conditions measured now at a station.", ["location"],
         ["get", "list", "search", "export", "count"]),
        ("alert", "alerts", "A severe weather warning (storm, flood, heat) for a region.", ["region"],
         ["list", "get", "search", "count", "share"]),
        ("air_quality", "air quality readings", "Air pollution and pollen levels at a place.", ["location"],
         ["get", "list", "export", "search", "count"]),
    ],
    "maps": [
        ("place", "places", "A place on the map (shop, restaurant, landmark) with an address.",
         ["query", "near"], ["search", "get", "list", "share", "count"]),
        ("route", "routes", "Directions (a route) between two places by car, bike or on foot.",
         ["origin", "destination", "mode"], ["get", "create", "share", "list", "export"]),
        ("geocode", "geocodes", "The latitude and longitude of an address, or the address at coordinates.",
         ["address", "latitude", "longitude"], ["get", "search", "list", "export", "count"]),
        ("distance", "distances", "Travel distance and time between places.", ["origins", "destinations"],
         ["get", "list", "count", "export", "search"]),
    ],
    "translate": [
        ("translation", "translations", "Text translated from one language into another.",
         ["text", "source_language", "target_language"], ["create", "get", "list", "export", "search"]),
        ("language", "languages", "A language the translator supports, and language detection of text.",
         ["text"], ["list", "get", "search", "count", "export"]),
        ("glossary", "glossaries", "A glossary of fixed term translations.", ["glossary_name", "terms"],
         ["create", "update", "delete", "list", "get"]),
        ("transcript", "transcripts", "A transcript (speech to text) of an audio recording.", ["audio_url"],
         ["create", "get", "list", "delete", "export"]),
    ],
    "docs": [
        ("document", "documents", "A text document (Google Docs/Word-like) with a title and body.",
         ["title", "body"], ["create", "get", "update", "share", "export"]),
        ("spreadsheet", "spreadsheets", "A spreadsheet of sheets with rows, columns and cells.",
         ["title", "sheet", "range"], ["create", "get", "update", "share", "export"]),
        ("presentation", "presentations", "A slide deck (presentation) with slides.", ["title", "slides"],
         ["create", "get", "update", "share", "export"]),
        ("template", "templates", "A document template to start new documents from.", ["template_name"],
         ["list", "get", "create", "delete", "copy"]),
    ],
    "tasks": [
        ("task", "tasks", "A to-do item (task) with a due date, priority and done state.",
         ["title", "due_date", "priority"], ["create", "update", "delete", "list", "assign"]),
        ("project", "projects", "A project board grouping tasks.", ["project_name"],
         ["create", "list", "archive", "get", "share"]),
        ("checklist", "checklists", "A checklist of small steps inside a task.", ["task_id", "items"],
         ["create", "update", "delete", "get", "copy"]),
        ("time_entry", "time entries", "Hours logged (time tracking) against a task or project.",
         ["task_id", "hours"], ["create", "list", "delete", "export", "count"]),
    ],
    "monitoring": [
        ("alert", "alerts", "A monitoring alert rule that fires when a metric crosses a threshold.",
         ["metric", "threshold"], ["create", "list", "delete", "update", "stop"]),
        ("metric", "metrics", "A time series of a service metric such as CPU, memory or latency.",
         ["metric", "since"], ["get", "list", "search", "export", "count"]),
        ("incident", "incidents", "An outage (incident) with its status, responders and timeline.",
         ["service", "severity"], ["create", "update", "list", "assign", "get"]),
        ("log", "logs", "Application log lines from services, with levels and timestamps.", ["service", "query"],
         ["search", "export", "count", "list", "get"]),
    ],
    "compute": [
        ("instance", "instances", "A cloud virtual machine (server, VM instance).", ["instance_id", "machine_type"],
         ["create", "start", "stop", "delete", "list"]),
        ("container", "containers", "A running container (Docker) of an image.", ["image", "container_id"],
         ["start", "stop", "list", "get", "delete"]),
        ("deployment", "deployments", "A release of an app version to an environment (deploy, rollout).",
         ["app", "version", "environment"], ["create", "list", "get", "cancel", "restore"]),
        ("secret", "secrets", "A stored secret (password, API key) for apps.", ["secret_name", "value"],
         ["create", "get", "delete", "list", "update"]),
    ],
    "identity": [
        ("user", "users", "A user account that can sign in, with email and status.", ["email", "display_name"],
         ["create", "get", "delete", "update", "search"]),
        ("group", "groups", "A group of user accounts that share permissions.", ["group_name", "members"],
         ["create", "list", "delete", "update", "get"]),
        ("role", "roles", "A role granting permissions (admin, editor, viewer).", ["role_name", "user_id"],
         ["assign", "list", "create", "delete", "get"]),
        ("session", "sessions", "A user's active login session and its devices.", ["user_id"],
         ["list", "delete", "get", "count", "search"]),
    ],
    "support": [
        ("ticket", "tickets", "A customer support ticket (help-desk case) with priority and status.",
         ["subject", "customer_email", "priority"], ["create", "update", "assign", "search", "get"]),
        ("reply", "replies", "A reply sent to a customer on a support ticket.", ["ticket_id", "text"],
         ["send", "list", "get", "delete", "update"]),
        ("article", "articles", "A help-center knowledge base article (FAQ).", ["title", "body"],
         ["create", "search", "update", "delete", "get"]),
        ("survey", "surveys", "A customer satisfaction survey (CSAT, NPS) and its answers.", ["ticket_id"],
         ["send", "list", "get", "export", "count"]),
    ],
}


def catalog(count: int = 500) -> list[tuple[str, str, list[str]]]:
    """``(name, description, parameter names)`` of the first ``count`` generated tools (at most 500)."""
    tools: list[tuple[str, str, list[str]]] = []
    for area, objects in _AREAS.items():
        for noun, plural, about, parameters, verbs in objects:
            scope = f" in {area}" if area not in noun else ""
            for verb in verbs:
                action = _VERBS[verb].format(noun=noun.replace("_", " "), plural=plural, scope=scope)
                parameters_of_verb = parameters if verb not in ("list", "count") else [*parameters[:1], "limit"]
                if verb in ("get", "update", "delete", "archive", "cancel", "restore", "approve", "download"):
                    parameters_of_verb = [f"{noun}_id", *parameters_of_verb[1:]]
                tools.append((f"{area}_{verb}_{noun}", f"{action} {about}", list(dict.fromkeys(parameters_of_verb))))
    return tools[:count]


def _make(name: str, parameters: list[str]) -> Any:
    """A function with these string parameters (the first required) that reports its call."""
    signature = ", ".join([f"{parameters[0]}: str", *(f"{p}: str = ''" for p in parameters[1:])])
    namespace: dict[str, Any] = {"json": json}
    # names and parameters come from the table above, never from outside
    exec(f"def {name}({signature}) -> str:\n"
         f"    return '{name} ran with ' + json.dumps({{k: v for k, v in locals().items() if v}}, sort_keys=True)\n",
         namespace)
    return namespace[name]


def build_server(count: int = 500, name: str = "catalog") -> MCPServer:
    """An ``MCPServer`` offering ``count`` generated tools (string parameters, the first one required)."""
    server = MCPServer(name)
    for tool_name, description, parameters in catalog(count):
        server.add_tool(_make(tool_name, parameters), name=tool_name, description=description)
    return server


if __name__ == "__main__":
    build_server().run()
