import MCP

extension AgentCall {
    /// The tools `/mcp` lists, each with the JSON Schema of its arguments (``parse(name:arguments:)``
    /// reads them).
    static let tools: [Tool] = [
        Tool(
            name: "list_notes", description: "List the files of the vault (every file, notes and attachments), in path order, a page at a time. Pass next_cursor back as cursor for the next page.",
            inputSchema: object([
                "under": ["type": "string", "description": "Only files under this folder, e.g. Projects/2026"],
                "cursor": ["type": "string", "description": "The next_cursor of the page before"],
                "limit": ["type": "integer", "minimum": 1, "maximum": .int(listLimits.most), "description": "How many at most (default \(listLimits.unasked))"],
            ]),
            annotations: .init(readOnlyHint: true)),
        Tool(
            name: "read_note", description: "Read a note's current text and version (the version to give write_note as base_version). A long note comes in chunks: pass next_offset back as offset.",
            inputSchema: object(["path": ["type": "string"], "offset": ["type": "integer", "minimum": 0, "description": "Byte offset to read from (default 0)"]], required: ["path"]),
            annotations: .init(readOnlyHint: true)),
        Tool(
            name: "search_notes",
            description: "Find notes by their words in the name, frontmatter values or text: every word must occur, \"a phrase\" in order, plan* as a prefix; letter case and accents do not matter. Best first, each with a snippet whose matches are between « and ».",
            inputSchema: object(
                ["query": ["type": "string"], "limit": ["type": "integer", "minimum": 1, "maximum": .int(searchLimits.most), "description": "How many at most (default \(searchLimits.unasked))"]],
                required: ["query"]),
            annotations: .init(readOnlyHint: true)),
        Tool(
            name: "note_history", description: "Every kept version of a file, newest first: when, by which device or token, deleted or not.",
            inputSchema: object(["path": ["type": "string"]], required: ["path"]), annotations: .init(readOnlyHint: true)),
        Tool(
            name: "diff_versions", description: "The lines that differ between two versions of a note, as a unified diff (- from, + to).",
            inputSchema: object(["path": ["type": "string"], "from": ["type": "integer", "minimum": 1], "to": ["type": "integer", "minimum": 1]], required: ["path", "from", "to"]),
            annotations: .init(readOnlyHint: true)),
        Tool(
            name: "write_note",
            description: "Write a note's whole text as its next version. Give base_version: the version you read (read_note); omit it only for a new note. If someone changed the note since, the two edits are merged as a device's would be; when they cannot be, the note stays as it is and your text is kept as a conflict record for a person to settle. Nothing is ever overwritten unseen.",
            inputSchema: object(
                ["path": ["type": "string"], "text": ["type": "string"], "base_version": ["type": "integer", "minimum": 1, "description": "The version your text is an edit of"]],
                required: ["path", "text"]),
            annotations: .init(destructiveHint: false, idempotentHint: false)),
        Tool(
            name: "restore_version", description: "Make an old version of a file current again, as its next version (the versions since stay in its history).",
            inputSchema: object(["path": ["type": "string"], "version": ["type": "integer", "minimum": 1]], required: ["path", "version"]),
            annotations: .init(destructiveHint: false, idempotentHint: false)),
    ]

    private static func object(_ properties: [String: Value], required: [String] = []) -> Value {
        ["type": "object", "properties": .object(properties), "required": .array(required.map { .string($0) }), "additionalProperties": false]
    }
}
