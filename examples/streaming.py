"""Stream an answer: text as it arrives, and which tool runs while it runs.

    python examples/streaming.py --model gpt-4o-mini
"""

from _setup import chat, connect, parse_args

args = parse_args(__doc__)
with connect(args) as client:
    conversation = chat(args).with_tools(*client.tools())
    for chunk in conversation.stream("Roll two six-sided dice with the roll_dice tool, then tell me the total."):
        call, result = chunk.tool_call, chunk.tool_result  # set on tool events only
        if chunk.is_tool_start and call:
            print(f"\n[using tool {call.name} {call.arguments}]", flush=True)
        elif chunk.is_tool_end and call and result:
            print(f"[{call.name} returned {result.text!r}]", flush=True)
        elif chunk.content:
            print(chunk.content, end="", flush=True)
    print()
