# lanescope.bash: bash completion for lanescope.  Commands, then each
# command's options as its --help lists them (read once per shell), draw's
# kinds, --target's built-in models and file names elsewhere.
_lanescope_options()
{
    local cmd=$1 var="_lanescope_opts_${1}"
    if [[ -z ${!var+set} ]]; then
        printf -v "$var" '%s' "$(lanescope "$cmd" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u | tr '\n' ' ')"
    fi
    printf '%s' "${!var}"
}

_lanescope()
{
    local cur prev cmd
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    local commands="explain sim draw suggest sweep measure calibrate compare view help"
    if ((COMP_CWORD == 1)); then
        mapfile -t COMPREPLY < <(compgen -W "$commands --help --version" -- "$cur")
        return
    fi
    cmd=${COMP_WORDS[1]}
    case $prev in
    --target | --base)
        mapfile -t COMPREPLY < <(compgen -W "h100 h200 a100 mi300x mi355x rx7900xtx sm_90 sm_80 gfx942 gfx950 gfx1100" -- "$cur")
        mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -X '!*.@(hw|mlir)' -- "$cur")
        return
        ;;
    -o | --trace | --csv | --chart | --roofline | --input | --measured | --out)
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        return
        ;;
    esac
    if [[ $cmd == draw && COMP_CWORD -eq 2 ]]; then
        mapfile -t COMPREPLY < <(compgen -W "layout nested swizzle banks traffic timeline compare roofline" -- "$cur")
        return
    fi
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_lanescope_options "$cmd")" -- "$cur")
        return
    fi
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -o filenames -F _lanescope lanescope
