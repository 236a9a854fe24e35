import Foundation
import Logging
import MCP
import SyncProtocol

/// One `/mcp` request's Model Context Protocol server: the SDK's server on its stateless HTTP
/// transport, made for the request's token, so that every handler acts for that token's vault,
/// folder and rights alone. Tools are ``AgentCall/tools``; resources are the vault's files
/// (`vaultsync:///PATH`), listed a page at a time and read as text.
struct AgentServer: Sendable {
    let agent: AgentService
    let scope: VaultScope
    let reach: AgentReach
    let readOnly: Bool

    static let resourceScheme = "vaultsync:///"

    /// The transport's answer to `request`; the server ends with it.
    func answer(_ request: MCP.HTTPRequest) async -> MCP.HTTPResponse {
        let server = Server(
            name: "vaultsync", version: VaultSyncServer.version.description, title: "VaultSync",
            instructions: instructions, capabilities: .init(resources: .init(subscribe: false, listChanged: false), tools: .init(listChanged: false)))
        await register(on: server)
        // The client's protocol versions are the SDK's to check; any Origin may call (a browser
        // sends no bearer token across sites without a preflight this server never answers).
        let transport = StatelessHTTPServerTransport(validationPipeline: StandardValidationPipeline(validators: [
            AcceptHeaderValidator(mode: .jsonOnly), ContentTypeValidator(), ProtocolVersionValidator(),
        ]))
        do {
            try await server.start(transport: transport)
        } catch {
            return .error(statusCode: 500, .internalError("the MCP server did not start"))
        }
        let response = await transport.handleRequest(request)
        await server.stop()
        return response
    }

    private var instructions: String {
        let folder = reach.under.map { " (only the folder \($0))" } ?? ""
        let rights = readOnly || !scope.role.writes ? "You may read and search." : "Every write is a version in the note's history, by this token."
        return "The notes of the VaultSync vault '\(scope.vaultName)'\(folder). \(rights) Read a note before you write it, and give write_note the version you read."
    }

    private func register(on server: Server) async {
        let (agent, scope, reach, readOnly) = (agent, scope, reach, readOnly)
        await server.withMethodHandler(ListTools.self) { _ in
            ListTools.Result(tools: readOnly || !scope.role.writes ? AgentCall.tools.filter { $0.annotations.readOnlyHint == true } : AgentCall.tools)
        }
        await server.withMethodHandler(CallTool.self) { params in
            do {
                let call = try AgentCall.parse(name: params.name, arguments: params.arguments)
                let result = try await agent.run(call, scope: scope, reach: reach, readOnly: readOnly)
                // The same JSON as text and as structured content (the wire's times and names).
                let json = try Self.json(result)
                return CallTool.Result(content: [.text(text: json, annotations: nil, _meta: nil)], structuredContent: try JSONDecoder().decode(Value.self, from: Data(json.utf8)) as Value?)
            } catch let failure as AgentFailure {
                return CallTool.Result(content: [.text(text: failure.description, annotations: nil, _meta: nil)], isError: true)
            } catch let error as ServiceError {
                return CallTool.Result(content: [.text(text: "refused: \(Self.words(error))", annotations: nil, _meta: nil)], isError: true)
            }
        }
        await server.withMethodHandler(ListResources.self) { params in
            let page = try await agent.run(.listNotes(under: nil, cursor: params.cursor, limit: AgentCall.listLimits.unasked), scope: scope, reach: reach, readOnly: true)
            guard let list = page as? AgentService.NoteList else { return ListResources.Result(resources: []) }
            return ListResources.Result(
                resources: list.notes.map { Resource(name: $0.path, uri: Self.resourceScheme + $0.path, mimeType: Self.mimeType($0.path), size: Int($0.sizeBytes)) },
                nextCursor: list.nextCursor)
        }
        await server.withMethodHandler(ReadResource.self) { params in
            guard params.uri.hasPrefix(Self.resourceScheme) else { throw MCPError.invalidParams("a resource here is \(Self.resourceScheme)PATH") }
            let path = String(params.uri.dropFirst(Self.resourceScheme.count)).removingPercentEncoding ?? ""
            do {
                guard let note = try await agent.run(.readNote(path: path, offset: 0), scope: scope, reach: reach, readOnly: true) as? AgentService.NoteText else {
                    throw MCPError.internalError("no text")
                }
                return ReadResource.Result(contents: [.text(note.text, uri: params.uri, mimeType: Self.mimeType(path))])
            } catch let failure as AgentFailure {
                throw MCPError.invalidParams(failure.description)
            }
        }
    }

    static func mimeType(_ path: String) -> String {
        path.lowercased().hasSuffix(".md") || path.lowercased().hasSuffix(".markdown") ? "text/markdown" : "text/plain"
    }

    /// A service's refusal in its own words (the wire's code and message).
    static func words(_ error: ServiceError) -> String {
        let wire = error.wire
        return "\(wire.body.code): \(wire.body.message)"
    }

    static func json(_ value: any Encodable) throws -> String {
        let encoder = WireCoding.encoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase  // as the API's own answers
        return String(decoding: try encoder.encode(AnyEncodable(value)), as: UTF8.self)
    }
}

/// An encodable value of any type, for the SDK's generic `Value(_:)`.
struct AnyEncodable: Codable, Sendable {
    let value: any Encodable & Sendable

    init(_ value: any Encodable) {
        self.value = value as! any Encodable & Sendable
    }

    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
    init(from decoder: any Decoder) throws { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "encode only")) }
}
