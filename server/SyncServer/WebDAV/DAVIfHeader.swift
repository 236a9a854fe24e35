import Foundation

/// WebDAV's `If` header (RFC 4918 §10.4): lists of conditions on lock tokens and ETags, each list
/// for the request's resource or for one it names. Pure: parsed from the header, evaluated
/// against the state of the resources it names.
struct DAVIfHeader: Equatable, Sendable {
    enum Check: Equatable, Sendable {
        /// A state token: a lock token such as `urn:uuid:…`, or `DAV:no-lock`, which no lock has.
        case token(String)
        /// An entity tag, with its quotes (`"…"`).
        case etag(String)
    }

    struct Condition: Equatable, Sendable {
        let negated: Bool
        let check: Check
    }

    struct List: Equatable, Sendable {
        /// The resource the list is about, as the header names it (a URL or a path); nil for the
        /// request's own.
        let resource: String?
        let conditions: [Condition]
    }

    let lists: [List]

    /// What a resource is now, as a condition sees it.
    struct State: Equatable, Sendable {
        /// nil when nothing is there.
        let etag: String?
        /// The tokens of the locks that cover it.
        let tokens: Set<String>
    }

    /// Every state token the header names: the lock tokens the client submits (RFC 4918 §10.4.1).
    var tokens: Set<String> {
        Set(lists.flatMap(\.conditions).compactMap { if case .token(let token) = $0.check { token } else { nil } })
    }

    /// Whether the header holds: true when any one of its lists does, a list holding when each
    /// of its conditions does. `state` gives the state of a resource a list names (nil: the
    /// request's own).
    func holds(_ state: (String?) -> State) -> Bool {
        lists.contains { list in
            let current = state(list.resource)
            return list.conditions.allSatisfy { condition in
                let matched = switch condition.check {
                case .token(let token): current.tokens.contains(token)
                case .etag(let etag): current.etag.map { $0 == etag.replacingOccurrences(of: "W/", with: "") } ?? false
                }
                return matched != condition.negated
            }
        }
    }

    /// Parses the request's `If` fields, each on its own (a client's lock store may add one
    /// beside the one a request carries): their lists together.
    /// - Throws: ``ServiceError/invalidRequest(_:)`` when one is not the RFC's grammar.
    static func parse(fields: [String]) throws -> DAVIfHeader {
        DAVIfHeader(lists: try fields.flatMap { try parse($0).lists })
    }

    /// Parses one field's value.
    /// - Throws: ``ServiceError/invalidRequest(_:)`` when it is not the RFC's grammar.
    static func parse(_ value: String) throws -> DAVIfHeader {
        var scanner = Scanner(Array(value.unicodeScalars))
        var lists: [List] = []
        var resource: String?
        var tagged: Bool?
        while scanner.skipSpace() {
            if scanner.peek == "<" {
                guard tagged != false else { throw invalid }
                tagged = true
                resource = try scanner.until(">")
                continue
            }
            guard scanner.peek == "(" else { throw invalid }
            if tagged == nil { tagged = false }
            guard tagged == false || resource != nil else { throw invalid }
            scanner.advance()
            var conditions: [Condition] = []
            while scanner.skipSpace(), scanner.peek != ")" {
                var negated = false
                if scanner.take("Not") {
                    negated = true
                    guard scanner.skipSpace() else { throw invalid }
                }
                switch scanner.peek {
                case "<": conditions.append(Condition(negated: negated, check: .token(try scanner.until(">"))))
                case "[": conditions.append(Condition(negated: negated, check: .etag(try scanner.until("]"))))
                default: throw invalid
                }
            }
            guard scanner.peek == ")", !conditions.isEmpty else { throw invalid }
            scanner.advance()
            lists.append(List(resource: resource, conditions: conditions))
        }
        guard !lists.isEmpty else { throw invalid }
        return DAVIfHeader(lists: lists)
    }

    private static let invalid = ServiceError.invalidRequest("the If header is not RFC 4918's: (<lock-token> [\"etag\"]) lists, each list after an optional <resource>")

    private struct Scanner {
        let characters: [Unicode.Scalar]
        var index = 0

        init(_ characters: [Unicode.Scalar]) { self.characters = characters }

        var peek: Unicode.Scalar? { index < characters.count ? characters[index] : nil }
        mutating func advance() { index += 1 }

        /// Skips white space; false at the end.
        mutating func skipSpace() -> Bool {
            while let character = peek, character == " " || character == "\t" { advance() }
            return peek != nil
        }

        mutating func take(_ word: String) -> Bool {
            let scalars = Array(word.unicodeScalars)
            guard index + scalars.count <= characters.count, Array(characters[index..<index + scalars.count]) == scalars else { return false }
            index += scalars.count
            return true
        }

        /// The text between the opening character here and `close` (a `[…]` keeps its inside only).
        mutating func until(_ close: Unicode.Scalar) throws -> String {
            advance()
            let start = index
            while let character = peek, character != close { advance() }
            guard peek == close, index > start else { throw DAVIfHeader.invalid }
            let text = String(String.UnicodeScalarView(characters[start..<index]))
            advance()
            return text
        }
    }
}
