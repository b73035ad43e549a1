;; Writes 64 MiB to stderr through WASI, in the 4096-byte writes the stream allows, in one call.
(module
  (import "wasi:cli/stderr@0.2.0" "get-stderr" (func $get-stderr (result i32)))
  (import "wasi:io/streams@0.2.0" "[method]output-stream.blocking-write-and-flush"
    (func $write (param i32 i32 i32 i32)))
  (import "wasi:io/streams@0.2.0" "[resource-drop]output-stream" (func $drop (param i32)))
  (memory (export "memory") 20)
  ;; limina:describe
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32)
    (local $stream i32) (local $i i32)
    ;; 1 MiB of lines: 63 'x' and a newline.
    (memory.fill (i32.const 65536) (i32.const 120) (i32.const 1048576))
    (loop $newline
      (i32.store8
        (i32.add (i32.const 65599) (i32.mul (local.get $i) (i32.const 64)))
        (i32.const 10))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $newline (i32.lt_u (local.get $i) (i32.const 16384))))
    (local.set $stream (call $get-stderr))
    (local.set $i (i32.const 0))
    (loop $flood
      (call $write
        (local.get $stream)
        (i32.add (i32.const 65536) (i32.mul (i32.and (local.get $i) (i32.const 255)) (i32.const 4096)))
        (i32.const 4096)
        (i32.const 8192))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $flood (i32.lt_u (local.get $i) (i32.const 16384))))
    (call $drop (local.get $stream))
    (i32.const 1100) (i32.const 2)))
