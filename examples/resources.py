"""Give a model an MCP resource and an expanded resource template as context.

    python examples/resources.py
    python examples/resources.py "Which topics do the notes cover?" --model ollama/llama3.2
"""

from _setup import chat, connect, parse_args

args = parse_args(__doc__, "In one sentence: what does this server offer, and what is MCP?")
with connect(args) as client:
    for resource in client.resources():
        print(f"resource {resource.uri}: {resource.description}")
    conversation = (chat(args)
                    .with_resource(client.resource("about"))
                    .with_resource_template(client.resource_template("notes"), arguments={"topic": "mcp"}))
    print(conversation.ask(args.question))
