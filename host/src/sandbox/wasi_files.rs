//! The guarded parts of `wasi:filesystem` (see `crate::files` for the rules). wasmtime-wasi
//! resolves every path beneath a volume's directory handle; these replacements add what it
//! cannot know: which volume and path each descriptor and output stream stands for, the hard
//! link rule, the package's write quota, denials in the trace, and one `files.write` event per
//! file per call.
//!
//! Replaced: `preopens.get-directories` and `descriptor.open-at` (to name what they open),
//! `descriptor.write`, `descriptor.set-size`, `descriptor.write-via-stream` and
//! `append-via-stream` (to meter and to know the streams), the writes of `output-stream`
//! (metered when the stream is a file's), and `get-stdout` / `get-stderr` (their streams are
//! never a file's, even when a handle number is reused).

use super::instance::GuestState;
use crate::files::FileAccess;
use anyhow::Result;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::os::unix::fs::MetadataExt;
use std::sync::Arc;
use wasmtime::StoreContextMut;
use wasmtime::component::{
    ComponentNamedList, Lift, Linker, LinkerInstance, Lower, Resource, ResourceTable,
};
use wasmtime_wasi::filesystem::{Descriptor, WasiFilesystemCtxView};
use wasmtime_wasi::p2::bindings::sync::filesystem::types::{
    self as fs, DescriptorFlags, DescriptorType, ErrorCode, Filesize, HostDescriptor, OpenFlags,
    PathFlags,
};
use wasmtime_wasi::p2::bindings::sync::io::streams::{
    self, HostOutputStream, InputStream, OutputStream, StreamError,
};

const TYPES: &str = "wasi:filesystem/types@0.2.12";
const PREOPENS: &str = "wasi:filesystem/preopens@0.2.12";
const STREAMS: &str = "wasi:io/streams@0.2.12";
const STDOUT: &str = "wasi:cli/stdout@0.2.12";
const STDERR: &str = "wasi:cli/stderr@0.2.12";

/// One instance's view of its files: its mounts, what each open descriptor and file stream
/// stands for, and what the call in progress wrote.
#[derive(Default)]
pub(super) struct FileGuard {
    pub access: FileAccess,
    descriptors: HashMap<u32, Place>,
    streams: HashMap<u32, Place>,
    /// Bytes written per (volume, path) in the call in progress.
    written: BTreeMap<(Arc<str>, String), u64>,
    /// Whether the withheld permission was traced in this call already.
    withheld_traced: bool,
}

/// A place in a volume: the volume and the path within it (`/`-separated, no leading `/`).
#[derive(Clone, Debug)]
struct Place {
    volume: Arc<str>,
    path: String,
}

impl Place {
    /// `path` taken from this place, for the trace (resolution itself is wasmtime-wasi's).
    fn join(&self, path: &str) -> Place {
        let mut parts: Vec<&str> = if path.starts_with('/') {
            Vec::new()
        } else {
            self.path.split('/').filter(|p| !p.is_empty()).collect()
        };
        for part in path.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop();
                }
                p => parts.push(p),
            }
        }
        Place {
            volume: self.volume.clone(),
            path: parts.join("/"),
        }
    }
}

/// Why a file operation was refused, for the trace and the guest.
struct Refusal {
    rule: &'static str,
    detail: Value,
}

impl FileGuard {
    /// A guard over `access`, with nothing open yet.
    pub fn new(access: FileAccess) -> Self {
        FileGuard {
            access,
            ..FileGuard::default()
        }
    }
}

impl GuestState {
    /// The filesystem view and the guard, side by side (making the WASI context if needed).
    fn filesystem(&mut self) -> (WasiFilesystemCtxView<'_>, &mut FileGuard) {
        let (ctx, table) = super::wasi::parts(&mut self.wasi, &self.files.access);
        (
            WasiFilesystemCtxView {
                ctx: ctx.filesystem(),
                table,
            },
            &mut self.files,
        )
    }

    /// The resource table and the guard, side by side.
    fn streams(&mut self) -> (&mut ResourceTable, &mut FileGuard) {
        let (_, table) = super::wasi::parts(&mut self.wasi, &self.files.access);
        (table, &mut self.files)
    }

    /// Traces a refused file operation as `security.permission.denied`, caused by the call.
    fn deny_file(&mut self, refusal: Refusal) {
        let package = self.package.clone();
        let Some(call) = self.call.as_mut() else {
            return;
        };
        let mut payload = json!({
            "boundary": "files",
            "rule": refusal.rule,
            "skill": call.info.skill,
            "package": &*package,
            "agentId": call.info.agent_id,
            "sessionId": call.info.session_id,
        });
        if let (Some(out), Value::Object(detail)) = (payload.as_object_mut(), refusal.detail) {
            out.extend(detail);
        }
        call.emit("security.permission.denied", payload);
    }

    /// Reserves `bytes` of the package's write quota for a write to `place`, tracing a refusal.
    fn reserve_write(&mut self, place: &Place, bytes: u64) -> bool {
        match self.files.access.quota.reserve(bytes) {
            Ok(()) => true,
            Err(used) => {
                let quota = self.files.access.quota.limit();
                self.deny_file(Refusal {
                    rule: "files.quota",
                    detail: json!({
                        "volume": &*place.volume,
                        "path": place.path,
                        "bytes": bytes,
                        "usedBytes": used,
                        "quotaBytes": quota,
                    }),
                });
                false
            }
        }
    }

    /// Settles a reservation of `reserved` bytes of which `written` were written.
    fn settle_write(&mut self, place: &Place, reserved: u64, written: u64) {
        self.files
            .access
            .quota
            .release(reserved.saturating_sub(written));
        if written > 0 {
            *self
                .files
                .written
                .entry((place.volume.clone(), place.path.clone()))
                .or_default() += written;
        }
    }

    /// At the end of a call: one `files.write {package, volume, path, bytes}` per file
    /// written, caused by the call (never what was written).
    pub(super) fn record_file_writes(&mut self) {
        self.files.withheld_traced = false;
        let written = std::mem::take(&mut self.files.written);
        let package = self.package.clone();
        let Some(call) = self.call.as_mut() else {
            return;
        };
        for ((volume, path), bytes) in written {
            call.emit(
                "files.write",
                json!({
                    "package": &*package,
                    "volume": &*volume,
                    "path": path,
                    "bytes": bytes,
                }),
            );
        }
    }

    fn place_of(&self, descriptor: u32) -> Option<Place> {
        self.files.descriptors.get(&descriptor).cloned()
    }

    fn writable(&self, place: &Place) -> bool {
        self.files
            .access
            .mount(&place.volume)
            .is_some_and(|m| m.writable)
    }
}

/// The quota refusal as a stream error: `insufficient-space` to the guest's libc.
fn no_space(table: &mut ResourceTable) -> wasmtime::Result<StreamError> {
    let error: wasmtime::Error = std::io::Error::from_raw_os_error(libc::ENOSPC).into();
    Ok(StreamError::LastOperationFailed(table.push(error)?))
}

fn fs_error(
    view: &mut WasiFilesystemCtxView<'_>,
    e: wasmtime_wasi::p2::FsError,
) -> wasmtime::Result<ErrorCode> {
    fs::Host::convert_error_code(view, e)
}

fn stream_error(
    table: &mut ResourceTable,
    e: wasmtime_wasi::p2::StreamError,
) -> wasmtime::Result<StreamError> {
    streams::Host::convert_stream_error(table, e)
}

type Store<'a> = StoreContextMut<'a, GuestState>;

/// Replaces the functions named in the module doc.
pub(super) fn shadow_files(linker: &mut Linker<GuestState>) -> Result<()> {
    linker.allow_shadowing(true);
    shadow_preopens(linker)?;
    shadow_descriptors(linker)?;
    shadow_streams(linker)?;
    shadow_stdio(linker)?;
    linker.allow_shadowing(false);
    Ok(())
}

fn shadow_preopens(linker: &mut Linker<GuestState>) -> Result<()> {
    let mut preopens = linker.instance(PREOPENS)?;
    preopens.func_wrap("get-directories", |mut store: Store<'_>, (): ()| {
        let state = store.data_mut();
        if let Some(missing) = state.files.access.withheld
            && !state.files.withheld_traced
        {
            state.files.withheld_traced = true;
            state.deny_file(Refusal {
                rule: "files.permission",
                detail: json!({"missing": missing.as_str()}),
            });
        }
        let (mut view, guard) = state.filesystem();
        let dirs =
            wasmtime_wasi::p2::bindings::filesystem::preopens::Host::get_directories(&mut view)?;
        for (dir, name) in &dirs {
            guard.descriptors.insert(
                dir.rep(),
                Place {
                    volume: name.trim_start_matches('/').into(),
                    path: String::new(),
                },
            );
        }
        Ok((dirs,))
    })?;
    Ok(())
}

fn shadow_descriptors(linker: &mut Linker<GuestState>) -> Result<()> {
    let mut types = linker.instance(TYPES)?;
    types.func_wrap(
        "[method]descriptor.open-at",
        |mut store: Store<'_>,
         (fd, path_flags, path, oflags, flags): (
            Resource<Descriptor>,
            PathFlags,
            String,
            OpenFlags,
            DescriptorFlags,
        )| {
            Ok((open_at(
                store.data_mut(),
                fd,
                path_flags,
                path,
                oflags,
                flags,
            )?,))
        },
    )?;
    types.func_wrap(
        "[method]descriptor.write",
        |mut store: Store<'_>, (fd, buf, offset): (Resource<Descriptor>, Vec<u8>, Filesize)| {
            let state = store.data_mut();
            let Some(place) = state.place_of(fd.rep()) else {
                return Ok((Err(ErrorCode::BadDescriptor),));
            };
            let bytes = buf.len() as u64;
            if !state.reserve_write(&place, bytes) {
                return Ok((Err(ErrorCode::InsufficientSpace),));
            }
            let (mut view, _) = state.filesystem();
            let result = HostDescriptor::write(&mut view, fd, buf, offset);
            let (written, reply) = match result {
                Ok(n) => (n, Ok(n)),
                Err(e) => (0, Err(fs_error(&mut view, e)?)),
            };
            state.settle_write(&place, bytes, written);
            Ok((reply,))
        },
    )?;
    types.func_wrap(
        "[method]descriptor.set-size",
        |mut store: Store<'_>, (fd, size): (Resource<Descriptor>, Filesize)| {
            let state = store.data_mut();
            let Some(place) = state.place_of(fd.rep()) else {
                return Ok((Err(ErrorCode::BadDescriptor),));
            };
            // Growing a file counts as writing the bytes it grows by.
            let (mut view, _) = state.filesystem();
            let now = match HostDescriptor::stat(&mut view, Resource::new_borrow(fd.rep())) {
                Ok(stat) => stat.size,
                Err(e) => return Ok((Err(fs_error(&mut view, e)?),)),
            };
            let growth = size.saturating_sub(now);
            if !state.reserve_write(&place, growth) {
                return Ok((Err(ErrorCode::InsufficientSpace),));
            }
            let (mut view, _) = state.filesystem();
            let (grown, reply) = match HostDescriptor::set_size(&mut view, fd, size) {
                Ok(()) => (growth, Ok(())),
                Err(e) => (0, Err(fs_error(&mut view, e)?)),
            };
            state.settle_write(&place, growth, grown);
            Ok((reply,))
        },
    )?;
    types.func_wrap(
        "[method]descriptor.write-via-stream",
        |mut store: Store<'_>, (fd, offset): (Resource<Descriptor>, Filesize)| {
            file_stream(store.data_mut(), fd, |view, fd| {
                HostDescriptor::write_via_stream(view, fd, offset)
            })
        },
    )?;
    types.func_wrap(
        "[method]descriptor.append-via-stream",
        |mut store: Store<'_>, (fd,): (Resource<Descriptor>,)| {
            file_stream(store.data_mut(), fd, |view, fd| {
                HostDescriptor::append_via_stream(view, fd)
            })
        },
    )?;
    Ok(())
}

/// `open-at`, refusing what would write to a read-only volume or through a hard link, and
/// naming what it opened.
fn open_at(
    state: &mut GuestState,
    fd: Resource<Descriptor>,
    path_flags: PathFlags,
    path: String,
    oflags: OpenFlags,
    flags: DescriptorFlags,
) -> wasmtime::Result<Result<Resource<Descriptor>, ErrorCode>> {
    let Some(base) = state.place_of(fd.rep()) else {
        return Ok(Err(ErrorCode::BadDescriptor));
    };
    let place = base.join(&path);
    let writes = flags.contains(DescriptorFlags::WRITE)
        || flags.contains(DescriptorFlags::MUTATE_DIRECTORY)
        || oflags.contains(OpenFlags::TRUNCATE)
        || oflags.contains(OpenFlags::CREATE);
    let refuse = |state: &mut GuestState, rule: &'static str, place: &Place| {
        state.deny_file(Refusal {
            rule,
            detail: json!({"volume": &*place.volume, "path": place.path}),
        });
        Ok(Err(ErrorCode::NotPermitted))
    };
    if writes && !state.writable(&place) {
        return refuse(state, "files.readOnly", &place);
    }
    let (mut view, _) = state.filesystem();
    if writes {
        // Before opening, so a truncating open never reaches a linked file.
        if let Ok(stat) = HostDescriptor::stat_at(
            &mut view,
            Resource::new_borrow(fd.rep()),
            path_flags,
            path.clone(),
        ) && stat.type_ == DescriptorType::RegularFile
            && stat.link_count > 1
        {
            return refuse(state, "files.hardLink", &place);
        }
    }
    let opened = match HostDescriptor::open_at(&mut view, fd, path_flags, path, oflags, flags) {
        Ok(opened) => opened,
        Err(e) => return Ok(Err(fs_error(&mut view, e)?)),
    };
    if writes {
        // And again on what was opened, in case a link appeared in between.
        let linked = match view.table.get(&opened)? {
            Descriptor::File(f) => f.file.metadata().map(|m| m.nlink() > 1).unwrap_or(true),
            Descriptor::Dir(_) => false,
        };
        if linked {
            HostDescriptor::drop(&mut view, opened)?;
            return refuse(state, "files.hardLink", &place);
        }
    }
    state.files.descriptors.insert(opened.rep(), place);
    Ok(Ok(opened))
}

/// A stream onto a file, remembered as that file's.
fn file_stream(
    state: &mut GuestState,
    fd: Resource<Descriptor>,
    open: impl FnOnce(
        &mut WasiFilesystemCtxView<'_>,
        Resource<Descriptor>,
    ) -> wasmtime_wasi::p2::FsResult<Resource<OutputStream>>,
) -> wasmtime::Result<(Result<Resource<OutputStream>, ErrorCode>,)> {
    let Some(place) = state.place_of(fd.rep()) else {
        return Ok((Err(ErrorCode::BadDescriptor),));
    };
    let (mut view, guard) = state.filesystem();
    match open(&mut view, fd) {
        Ok(stream) => {
            guard.streams.insert(stream.rep(), place);
            Ok((Ok(stream),))
        }
        Err(e) => Ok((Err(fs_error(&mut view, e)?),)),
    }
}

/// Runs a write of at most `bytes` on `stream`: metered when it is a file's.
fn metered<T>(
    state: &mut GuestState,
    stream: u32,
    bytes: u64,
    write: impl FnOnce(&mut ResourceTable) -> wasmtime_wasi::p2::StreamResult<T>,
    written: impl Fn(&T) -> u64,
) -> wasmtime::Result<(Result<T, StreamError>,)> {
    let place = state.files.streams.get(&stream).cloned();
    if let Some(place) = &place
        && !state.reserve_write(place, bytes)
    {
        let (table, _) = state.streams();
        return Ok((Err(no_space(table)?),));
    }
    let (table, _) = state.streams();
    let (done, reply) = match write(table) {
        Ok(value) => (written(&value), Ok(value)),
        Err(e) => (0, Err(stream_error(table, e)?)),
    };
    if let Some(place) = &place {
        state.settle_write(place, bytes, done);
    }
    Ok((reply,))
}

fn shadow_streams(linker: &mut Linker<GuestState>) -> Result<()> {
    let mut io = linker.instance(STREAMS)?;
    shadow_write(
        &mut io,
        [
            "[method]output-stream.write",
            "[method]output-stream.blocking-write-and-flush",
        ],
        |(stream, bytes): &(Resource<OutputStream>, Vec<u8>)| (stream.rep(), bytes.len() as u64),
        |table, (stream, bytes), blocking| {
            if blocking {
                HostOutputStream::blocking_write_and_flush(table, stream, bytes)
            } else {
                HostOutputStream::write(table, stream, bytes)
            }
        },
        |_, len| len,
    )?;
    shadow_write(
        &mut io,
        [
            "[method]output-stream.write-zeroes",
            "[method]output-stream.blocking-write-zeroes-and-flush",
        ],
        |(stream, len): &(Resource<OutputStream>, u64)| (stream.rep(), *len),
        |table, (stream, len), blocking| {
            if blocking {
                HostOutputStream::blocking_write_zeroes_and_flush(table, stream, len)
            } else {
                HostOutputStream::write_zeroes(table, stream, len)
            }
        },
        |_, len| len,
    )?;
    shadow_write(
        &mut io,
        [
            "[method]output-stream.splice",
            "[method]output-stream.blocking-splice",
        ],
        |(dst, _, len): &(Resource<OutputStream>, Resource<InputStream>, u64)| (dst.rep(), *len),
        |table, (dst, src, len), blocking| {
            if blocking {
                HostOutputStream::blocking_splice(table, dst, src, len)
            } else {
                HostOutputStream::splice(table, dst, src, len)
            }
        },
        |spliced, _| *spliced,
    )
}

/// Shadows one write of `output-stream`, under its plain and its blocking name (`names`, in
/// that order), with a metered one: `target` gives the stream and the most the write may
/// write, `write` writes (blocking or not), `written` what it wrote (from its reply and that
/// most).
fn shadow_write<A, T>(
    io: &mut LinkerInstance<'_, GuestState>,
    names: [&str; 2],
    target: fn(&A) -> (u32, u64),
    write: fn(&mut ResourceTable, A, bool) -> wasmtime_wasi::p2::StreamResult<T>,
    written: fn(&T, u64) -> u64,
) -> Result<()>
where
    A: ComponentNamedList + Lift + 'static,
    (Result<T, StreamError>,): ComponentNamedList + Lower + 'static,
{
    for (name, blocking) in names.into_iter().zip([false, true]) {
        io.func_wrap(name, move |mut store: Store<'_>, args: A| {
            let (rep, most) = target(&args);
            metered(
                store.data_mut(),
                rep,
                most,
                |table| write(table, args, blocking),
                |reply| written(reply, most),
            )
        })?;
    }
    Ok(())
}

fn shadow_stdio(linker: &mut Linker<GuestState>) -> Result<()> {
    use wasmtime_wasi::cli::WasiCliCtxView;
    use wasmtime_wasi::p2::bindings::cli::{stderr, stdout};
    type Get = fn(&mut WasiCliCtxView<'_>) -> wasmtime::Result<Resource<OutputStream>>;
    let gets: [(&str, &str, Get); 2] = [
        (STDOUT, "get-stdout", |cli| stdout::Host::get_stdout(cli)),
        (STDERR, "get-stderr", |cli| stderr::Host::get_stderr(cli)),
    ];
    for (instance, name, get) in gets {
        linker
            .instance(instance)?
            .func_wrap(name, move |mut store: Store<'_>, (): ()| {
                let state = store.data_mut();
                let (ctx, table) = state.wasi_parts();
                let stream = get(&mut WasiCliCtxView {
                    ctx: ctx.cli(),
                    table,
                })?;
                state.files.streams.remove(&stream.rep());
                Ok((stream,))
            })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Place;

    #[test]
    fn a_place_names_the_path_within_its_volume() {
        let root = Place {
            volume: "notes".into(),
            path: String::new(),
        };
        assert_eq!(root.join("a/b.txt").path, "a/b.txt");
        assert_eq!(root.join("./a//b/../c.txt").path, "a/c.txt");
        assert_eq!(root.join("../../etc/passwd").path, "etc/passwd");
        let dir = root.join("sub");
        assert_eq!(dir.join("x").path, "sub/x");
        assert_eq!(dir.join("/abs").path, "abs");
        assert_eq!(dir.join("x").volume.as_ref(), "notes");
    }
}
