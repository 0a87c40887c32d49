#include "ipt/flow_walk.hpp"

#include "ipt/errors.hpp"

namespace ringscope::ipt {

FlowWalk::Step FlowWalk::sync() {
    for (;;) {
        status_ = d_.sync_forward();
        if (status_ >= 0) {
            synced_ = true;
            return Step::synced;
        }
        // Without progress there will be none.
        uint64_t now = 0;
        if (status_ == -pte_eos || d_.get_offset(now) < 0 || now <= sync_at_) {
            done_ = true;
            return Step::end;
        }
        sync_at_ = now;
    }
}

FlowWalk::Step FlowWalk::next(InsnPath& path, bool one_run) {
    if (done_) return Step::end;
    if (!synced_) return sync();
    int status = status_;
    interrupted_ = false;
    while (status >= 0 && (status & pts_event_pending)) {
        QueryEvent ev;
        status = d_.event(ev);
        if (!ev.status_update) interrupted_ = true;
    }
    if (status < 0 || (status & pts_eos)) {
        if (status >= 0 || status == -pte_eos) {
            done_ = true;
            return Step::end;
        }
        status_ = status;
        synced_ = false;
        return Step::error;
    }
    uint64_t offset = 0;
    // get_offset (a search of the cached TNT run) only near the next step of pages.
    if (pages_ && !pages_->before_step(d_.read_offset()) && d_.get_offset(offset) == 0 &&
        !pages_->at(offset)) {
        done_ = true;
        return Step::end;
    }
    path = InsnPath{};
    if (!time_) {
        status_ = one_run ? d_.next_block(path.single) : d_.next_path(path);
        return Step::run;
    }
    d_.time(time_before_);
    status_ = one_run ? d_.next_block(path.single) : d_.next_path_timed(path);
    d_.time(time_after_);
    return Step::run;
}

}  // namespace ringscope::ipt
