"""Let a model use an MCP server's tools.

    python examples/tools.py
    python examples/tools.py "How many words are in 'to be or not to be'?" --model ollama/llama3.2
"""

from _setup import chat, connect, parse_args

args = parse_args(__doc__, "What is 1234 + 4321? Use the add tool.")
with connect(args) as client:
    conversation = chat(args).with_tools(*client.tools())
    conversation.on_tool_call(lambda call: print(f"-> {call.name}({call.arguments})"))
    conversation.on_tool_result(lambda result: print(f"<- {result.text}"))
    reply = conversation.ask(args.question)
    print(reply)
