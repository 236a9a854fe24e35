import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A property's name: its namespace (`DAV:` for WebDAV's own) and local name.
struct DAVProperty: Hashable, Sendable {
    let namespace: String
    let name: String

    static func dav(_ name: String) -> DAVProperty { DAVProperty(namespace: "DAV:", name: name) }
}

/// What a `PROPFIND` asks for (RFC 4918 §9.1): every property (also when the body is empty), only
/// their names, or the properties named.
enum PropfindBody: Equatable, Sendable {
    case allprop
    case propname
    case prop([DAVProperty])

    /// Parses a request body.
    /// - Throws: ``ServiceError/invalidRequest(_:)`` for XML that does not parse or is not a propfind.
    static func parse(_ data: Data) throws -> PropfindBody {
        guard !data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else { return .allprop }
        let tree = try DAVXMLTree.parse(data)
        guard tree.namespace == "DAV:", tree.name == "propfind" else { throw ServiceError.invalidRequest("the body is not a DAV:propfind") }
        if tree.children.contains(where: { $0.namespace == "DAV:" && $0.name == "propname" }) { return .propname }
        if let prop = tree.children.first(where: { $0.namespace == "DAV:" && $0.name == "prop" }) {
            return .prop(prop.children.map { DAVProperty(namespace: $0.namespace, name: $0.name) })
        }
        return .allprop
    }
}

/// An XML element with its namespace resolved, its content in order (text and elements) and its
/// plain attributes: what the few request bodies WebDAV has (propfind, propertyupdate, lockinfo)
/// parse into. Parsed with external entities off and the body bounded by the caller.
final class DAVXMLTree: @unchecked Sendable {
    enum Node {
        case text(String)
        case element(DAVXMLTree)
    }

    let namespace: String
    let name: String
    /// Attributes without a namespace prefix (namespace declarations are not among them).
    let attributes: [String: String]
    var nodes: [Node] = []

    init(namespace: String, name: String, attributes: [String: String] = [:]) {
        self.namespace = namespace
        self.name = name
        self.attributes = attributes
    }

    /// Frees the subtree with a loop: the default release is one call per level, and a body deep
    /// enough once ran the stack out (a crash for every request on the server).
    deinit {
        var pending = nodes
        nodes = []
        while let node = pending.popLast() {
            guard case .element(let element) = node else { continue }
            pending += element.nodes
            element.nodes = []
        }
    }

    /// How deep a request body's elements may nest and how many it may hold: WebDAV's bodies need
    /// about five levels and a few hundred elements (a `PROPFIND` naming many properties), so a
    /// body past either is refused before a tree of it is built.
    static let maxDepth = 32
    static let maxElements = 10_000

    var children: [DAVXMLTree] { nodes.compactMap { if case .element(let element) = $0 { element } else { nil } } }
    var text: String { nodes.map { if case .text(let text) = $0 { text } else { "" } }.joined() }

    /// The first child named `name` in `DAV:`.
    func child(_ name: String) -> DAVXMLTree? { children.first { $0.namespace == "DAV:" && $0.name == name } }

    /// The element's content as XML that stands on its own: each element declares its namespace
    /// (`xmlns="…"`) where it is, so the value reads the same wherever it is written back.
    var innerXML: String { nodes.map { node in
        switch node {
        case .text(let text): Markup.escape(text)
        case .element(let element): element.outerXML
        }
    }.joined() }

    var outerXML: String {
        let attributes = attributes.sorted { $0.key < $1.key }.map { " \($0.key)=\"\(Markup.escape($0.value))\"" }.joined()
        let open = "\(name) xmlns=\"\(Markup.escape(namespace))\"\(attributes)"
        let inner = innerXML
        return inner.isEmpty ? "<\(open)/>" : "<\(open)>\(inner)</\(name)>"
    }

    /// - Throws: ``ServiceError/invalidRequest(_:)`` when `data` is not well-formed XML (a
    ///   namespace prefix bound to nothing included), or nests deeper than ``maxDepth`` or holds
    ///   more than ``maxElements`` elements.
    static func parse(_ data: Data) throws -> DAVXMLTree {
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = true
        parser.shouldResolveExternalEntities = false
        let builder = Builder()
        parser.delegate = builder
        let parsed = parser.parse()
        if let excess = builder.excess { throw ServiceError.invalidRequest(excess) }
        guard parsed, !builder.invalid, let root = builder.root else { throw ServiceError.invalidRequest("the body is not well-formed XML") }
        return root
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: DAVXMLTree?
        var stack: [DAVXMLTree] = []
        /// A prefix declared as "" (`xmlns:p=""`), which XML namespaces forbid.
        var invalid = false
        var elements = 0
        /// Why the parse was stopped: the body nests too deep or holds too many elements.
        var excess: String?

        func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
            if !prefix.isEmpty, namespaceURI.isEmpty { invalid = true }
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            guard excess == nil else { return }
            if let qualifiedName, qualifiedName.contains(":"), (namespaceURI ?? "").isEmpty { invalid = true }
            elements += 1
            guard stack.count < DAVXMLTree.maxDepth, elements <= DAVXMLTree.maxElements else {
                excess = stack.count < DAVXMLTree.maxDepth
                    ? "the body holds more than \(DAVXMLTree.maxElements) XML elements; no WebDAV request needs so many"
                    : "the body's XML nests deeper than \(DAVXMLTree.maxDepth) levels; no WebDAV request needs so many"
                parser.abortParsing()
                return
            }
            let plain = attributes.filter { !$0.key.contains(":") && $0.key != "xmlns" }
            let element = DAVXMLTree(namespace: namespaceURI ?? "", name: name, attributes: plain)
            if let parent = stack.last { parent.nodes.append(.element(element)) } else { root = element }
            stack.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            guard excess == nil else { return }
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard excess == nil, let last = stack.last else { return }
            if case .text(let text)? = last.nodes.last {
                last.nodes[last.nodes.count - 1] = .text(text + string)
            } else {
                last.nodes.append(.text(string))
            }
        }
    }
}

/// Writes `multistatus` answers (RFC 4918 §13): for each resource its href and the properties
/// found (with their values, already XML) and not found.
struct Multistatus {
    struct Entry {
        let href: String
        var found: [(DAVProperty, String)] = []
        var missing: [DAVProperty] = []
        /// A whole-resource status instead of properties (e.g. a member a MOVE could not move).
        var status: String? = nil
        /// Properties named with a status of their own and no value (a `PROPPATCH`'s answer).
        var propstats: [(status: String, properties: [DAVProperty])] = []
        /// A line saying why, for a person.
        var description: String? = nil
    }

    static func xml(_ entries: [Entry]) -> String {
        // Appended piece by piece into one string: a listing of 10,000 files is megabytes.
        var out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:multistatus xmlns:D=\"DAV:\">\n"
        out.reserveCapacity(entries.count * 640)
        func propstat(_ properties: [(DAVProperty, String)], _ status: String) {
            out += "<D:propstat><D:prop>"
            for (property, value) in properties { append(property, value, to: &out) }
            out += "</D:prop><D:status>HTTP/1.1 "
            out += status
            out += "</D:status></D:propstat>"
        }
        for entry in entries {
            out += "<D:response><D:href>"
            out += escape(entry.href)
            out += "</D:href>"
            if let status = entry.status {
                out += "<D:status>HTTP/1.1 "
                out += status
                out += "</D:status>"
            }
            if !entry.found.isEmpty { propstat(entry.found, "200 OK") }
            if !entry.missing.isEmpty { propstat(entry.missing.map { ($0, "") }, "404 Not Found") }
            for (status, properties) in entry.propstats { propstat(properties.map { ($0, "") }, status) }
            if let description = entry.description {
                out += "<D:responsedescription>"
                out += escape(description)
                out += "</D:responsedescription>"
            }
            out += "</D:response>\n"
        }
        out += "</D:multistatus>\n"
        return out
    }

    /// Appends `<name>value</name>` in its namespace (`DAV:` as `D:`, others declared where used).
    static func append(_ property: DAVProperty, _ value: String, to out: inout String) {
        out += "<"
        if property.namespace == "DAV:" {
            out += "D:"
            out += property.name
        } else if property.namespace.isEmpty {
            out += property.name
            out += " xmlns=\"\""
        } else {
            out += "X:"
            out += property.name
            out += " xmlns:X=\""
            out += escape(property.namespace)
            out += "\""
        }
        guard !value.isEmpty else {
            out += "/>"
            return
        }
        out += ">"
        out += value
        out += "</"
        if property.namespace == "DAV:" { out += "D:" } else if !property.namespace.isEmpty { out += "X:" }
        out += property.name
        out += ">"
    }

    /// Text as XML character data or an attribute value (``Markup/escape(_:)``).
    static func escape(_ text: String) -> String { Markup.escape(text) }
}
