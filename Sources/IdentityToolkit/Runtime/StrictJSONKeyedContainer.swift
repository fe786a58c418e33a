import Foundation

/// The keyed container of ``NodeDecoder``: an object's members, found by
/// name (and, for request bodies, by the other spelling of their wire
/// name), absent required ones filled as ``StrictJSONReading`` says.
struct KeyedNodeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [(name: String, value: JSONNode)]
    let codingPath: [any CodingKey]
    let reading: StrictJSONReading
    /// Wire name → index of the member sent under its other spelling
    /// (proto3 JSON reading only): resolved by name, never by copying.
    private let otherSpellings: [String: Int]

    init(members: [(name: String, value: JSONNode)], codingPath: [any CodingKey], reading: StrictJSONReading) {
        self.members = members
        self.codingPath = codingPath
        self.reading = reading
        var otherSpellings: [String: Int] = [:]
        if let snakeCaseWireNames = reading.snakeCaseWireNames {
            for (index, member) in members.enumerated() {
                let wireName = StrictJSONReading.wireName(of: member.name, snakeCaseWireNames: snakeCaseWireNames)
                guard wireName != member.name else { continue }
                // Two other spellings of one name: the first in name order, every time.
                if let earlier = otherSpellings[wireName], members[earlier].name < member.name { continue }
                otherSpellings[wireName] = index
            }
        }
        self.otherSpellings = otherSpellings
    }

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.name) } }

    /// The member sent for `key`: under its own name (which wins), else under the other spelling.
    private func member(_ key: Key) -> JSONNode? {
        let name = key.stringValue
        if let member = members.first(where: { $0.name == name }) { return member.value }
        // Most bodies send every name in its own spelling: no hashing then.
        guard !otherSpellings.isEmpty, let index = otherSpellings[name] else { return nil }
        return members[index].value
    }

    func contains(_ key: Key) -> Bool { member(key) != nil }

    private func notFound(_ key: Key) -> DecodingError {
        .keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no member \(key.stringValue)"))
    }

    private func value(_ key: Key) throws -> JSONNode {
        guard let value = member(key) else { throw notFound(key) }
        return value
    }

    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    /// The decoder for `key`'s value; for an absent member when this reading fills them, one that reads it empty.
    private func decoder(_ key: Key) throws -> NodeDecoder {
        if let value = member(key) { return NodeDecoder(node: value, codingPath: path(key), reading: reading) }
        guard reading.fillsAbsentRequiredMembers else { throw notFound(key) }
        return NodeDecoder(node: .null, codingPath: path(key), reading: reading, isAbsent: true)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try value(key) { return !reading.refusesNullMembers }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try NodeValue.bool(value(key), path(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        guard let value = requiredMember(key) else {
            if reading.fillsAbsentRequiredMembers { return "" }
            throw notFound(key)
        }
        return try NodeValue.string(value, path(key))
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try NodeValue.floatingPoint(type, value(key), path(key))
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try NodeValue.floatingPoint(type, value(key), path(key))
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try NodeValue.integer(type, value(key), path(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try NodeValue.integer(type, value(key), path(key))
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try NodeValue.integer(type, value(key), path(key))
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try NodeValue.integer(type, value(key), path(key))
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try NodeValue.integer(type, value(key), path(key))
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try NodeValue.integer(type, value(key), path(key))
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try NodeValue.integer(type, value(key), path(key))
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try NodeValue.integer(type, value(key), path(key))
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try NodeValue.integer(type, value(key), path(key))
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try NodeValue.integer(type, value(key), path(key))
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if let value = requiredMember(key) { return try NodeValue.decodable(type, value, path(key), reading) }
        guard reading.fillsAbsentRequiredMembers else { throw notFound(key) }
        do {
            return try T(from: NodeDecoder(node: .null, codingPath: path(key), reading: reading, isAbsent: true))
        } catch DecodingError.keyNotFound(let inner, let context) {
            // A member absent inside the filled value is reported where it is.
            throw DecodingError.keyNotFound(inner, context)
        } catch {
            // No empty value fits (a date, an enumeration): the member is reported missing.
            throw notFound(key)
        }
    }

    /// A required member's value; when absent members are filled, a null
    /// one is absent too (proto3 JSON reads a null as the field's default),
    /// unless the reading refuses nulls.
    private func requiredMember(_ key: Key) -> JSONNode? {
        guard let value = member(key) else { return nil }
        if case .null = value, reading.fillsAbsentRequiredMembers, !reading.refusesNullMembers { return nil }
        return value
    }

    /// The member's value, nil when it is absent or null (as with
    /// `JSONDecoder`); a null is kept, for the value's reader to refuse,
    /// when the reading refuses null members.
    private func presentValue(_ key: Key) -> JSONNode? {
        guard let value = member(key) else { return nil }
        if case .null = value, !reading.refusesNullMembers { return nil }
        return value
    }

    // The optional members, read in one lookup (the protocol's defaults make three).
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try presentValue(key).map { try NodeValue.string($0, path(key)) }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try presentValue(key).map { try NodeValue.bool($0, path(key)) }
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try presentValue(key).map { try NodeValue.integer(type, $0, path(key)) }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try presentValue(key).map { try NodeValue.decodable(type, $0, path(key), reading) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try decoder(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        NodeDecoder(
            node: members.first { $0.name == "super" }?.value ?? .null, codingPath: codingPath + [JSONCodingKey.super],
            reading: reading)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        NodeDecoder(node: member(key) ?? .null, codingPath: path(key), reading: reading)
    }
}
