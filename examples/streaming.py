"""Stream an answer: text as it arrives, and which tool runs while it runs.

    python examples/streaming.py
    python examples/streaming.py "Roll three twenty-sided dice." --model ollama/llama3.2
"""

from _setup import chat, connect, parse_args

args = parse_args(__doc__, "Roll two six-sided dice with the roll_dice tool, then tell me the total.")
with connect(args) as client:
    conversation = chat(args).with_tools(*client.tools())
    for chunk in conversation.stream(args.question):
        call, result = chunk.tool_call, chunk.tool_result  # set on tool events only
        if chunk.is_tool_start and call:
            print(f"\n[using tool {call.name} {call.arguments}]", flush=True)
        elif chunk.is_tool_end and call and result:
            print(f"[{call.name} returned {result.text!r}]", flush=True)
        elif chunk.content:
            print(chunk.content, end="", flush=True)
    print()
