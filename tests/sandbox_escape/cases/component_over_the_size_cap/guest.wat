;; A harmless guest made larger than the host's size cap by a custom section of padding
;; (added by the test helper, see case.toml).
(module
  (memory (export "memory") 1)
  ;; limina:describe
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32) (i32.const 1100) (i32.const 2)))
