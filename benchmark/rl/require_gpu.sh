# Sourced by the GPU scripts: `require_gpu SCRIPT MODULE...` stops (one line, exit 2) before anything is exported
# or built where there is no GPU or a Python module training needs is missing. GPU_CHECK=0 skips it (CI composes
# the scripts' overrides on a CPU, with python3 a stub).
require_gpu() {
    local script=$1
    shift
    [ "${GPU_CHECK:-1}" = 1 ] || return 0
    if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
        echo "$script: no GPU here (nvidia-smi finds none); on a CPU try TRL (README, 'Training')" >&2
        exit 2
    fi
    local module
    for module in "$@"; do
        if ! python3 -c "import $module" >/dev/null 2>&1; then
            echo "$script: $module is not installed: pip install 'kopa[rl-gpu]'" >&2
            exit 2
        fi
    done
}
