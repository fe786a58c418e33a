#if Emulator
import Foundation

/// Why the emulator will not write an export to a folder.
public struct EmulatorExportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the path.
    public let description: String

    init(_ description: String) { self.description = description }
}

/// Where an export may be written. An export replaces its folder whole, so
/// the emulator writes only into a folder that is missing or empty, or that
/// holds a previous export and nothing else: it never deletes or overwrites
/// what it did not write (`--export-on-exit ~` once replaced a home folder).
enum ExportTarget {
    /// Refuses `directory` unless an export may replace it: missing (its
    /// parents are made), an empty folder, or a previous export — its
    /// `firebase-export-metadata.json` and only the files an export writes.
    static func check(_ directory: URL) throws(EmulatorExportError) {
        let manager = FileManager.default
        let path = directory.path
        if isSymbolicLink(path) {
            throw EmulatorExportError("cannot export to \(path): it is a symbolic link; name the folder itself")
        }
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else { return }
        guard isDirectory.boolValue else {
            throw EmulatorExportError(
                "cannot export to \(path): it is a file, not a folder; name a missing or empty folder, or a previous export"
            )
        }
        let entries: [String]
        do {
            entries = try manager.contentsOfDirectory(atPath: path).sorted()
        } catch {
            throw EmulatorExportError("cannot export to \(path): its contents cannot be read")
        }
        guard !entries.isEmpty else { return }
        let foreign = foreignEntries(of: directory, entries)
        guard foreign.isEmpty else {
            let shown = foreign.prefix(5).joined(separator: ", ") + (foreign.count > 5 ? ", …" : "")
            throw EmulatorExportError(
                "cannot export to \(path): it holds files an export does not write (\(shown)); name a missing or empty folder, or a previous export"
            )
        }
        guard entries.contains(EmulatorExport.metadataFile) else {
            throw EmulatorExportError(
                "cannot export to \(path): it has no \(EmulatorExport.metadataFile), so it is not a previous export; name a missing or empty folder"
            )
        }
    }

    /// The entries of a folder that an export does not write (a folder
    /// named with a trailing `/`), at the top and in `auth_export`.
    private static func foreignEntries(of directory: URL, _ entries: [String]) -> [String] {
        var foreign: [String] = []
        for entry in entries {
            let url = directory.appendingPathComponent(entry)
            switch entry {
            case EmulatorExport.metadataFile:
                if !isRegularFile(url.path) { foreign.append(entry) }
            case EmulatorExport.authFolder:
                guard isFolder(url.path), let inner = try? FileManager.default.contentsOfDirectory(atPath: url.path)
                else {
                    foreign.append(entry)
                    continue
                }
                for name in inner.sorted()
                where !isExportFile(name) || !isRegularFile(url.appendingPathComponent(name).path) {
                    foreign.append("\(entry)/\(name)")
                }
            default:
                foreign.append(isFolder(url.path) ? entry + "/" : entry)
            }
        }
        return foreign
    }

    /// Whether `auth_export` of an export holds a file of this name.
    private static func isExportFile(_ name: String) -> Bool {
        name == EmulatorExport.configFile || name == EmulatorExport.extrasFile
            || EmulatorExport.tenant(ofAccountsFile: name) != nil
    }

    /// The folder the export route writes for a request's `path`: the
    /// export folder given at start (`root`), or a folder inside it
    /// (`path` absolute, or relative to the root); any other path is refused.
    static func folder(forRequestedPath requested: String, root: String?) throws(EmulatorExportError) -> URL {
        guard let root else {
            throw EmulatorExportError(
                "this emulator exports over HTTP only into a folder given at start: start it with --export-dir DIR (or --export-on-exit DIR)"
            )
        }
        guard !requested.split(separator: "/").contains("..") else {
            throw EmulatorExportError("cannot export to \(requested): a path must not contain '..'")
        }
        let rootPath = resolved(URL(fileURLWithPath: root))
        let url =
            requested.hasPrefix("/")
            ? URL(fileURLWithPath: requested) : URL(fileURLWithPath: rootPath).appendingPathComponent(requested)
        let path = resolved(url)
        guard path == rootPath || path.hasPrefix(rootPath.hasSuffix("/") ? rootPath : rootPath + "/") else {
            throw EmulatorExportError(
                "cannot export to \(requested): it is outside the export folder \(rootPath) given at start")
        }
        return URL(fileURLWithPath: path)
    }

    /// The path with every symbolic link on it followed, for the part that
    /// exists (a link inside the root may point anywhere), then the rest.
    static func resolved(_ url: URL) -> String {
        var existing = url.standardizedFileURL
        var rest: [String] = []
        while true {
            if let real = realPath(existing.path) {
                return rest.reduce(URL(fileURLWithPath: real)) { $0.appendingPathComponent($1) }.path
            }
            guard existing.path != "/" else { return url.standardizedFileURL.path }
            rest.insert(existing.lastPathComponent, at: 0)
            existing.deleteLastPathComponent()
        }
    }

    /// `realpath(3)`: nil when the path does not exist.
    private static func realPath(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    private static func isSymbolicLink(_ path: String) -> Bool {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil
    }

    private static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return !isSymbolicLink(path) && FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            && isDirectory.boolValue
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return !isSymbolicLink(path) && FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            && !isDirectory.boolValue
    }
}
#endif
